//===- Reference.h - Checking outputs against a reference -------*- C++ -*-===//
//
// A float64 reference computes what a kernel should, element by element,
// so that a check can compare every element of a small output or a sample
// of a large one; references know nothing of tiles, variants or the
// compiler. This library holds the interface and the check every tool
// shares; no reference of any particular kernel: the examples' are in
// examples/references, and the tools that check them pass a Catalog.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_REFERENCE_REFERENCE_H
#define PHOBOS_REFERENCE_REFERENCE_H

#include "Phobos/Runtime/HostTensor.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace phobos::reference {

/// The inputs of a run: every tensor as it was before the kernel ran, and
/// every scalar.
struct Problem {
  llvm::StringMap<const HostTensor *> tensors;
  llvm::StringMap<double> scalars;
};

class Reference {
public:
  virtual ~Reference() = default;
  /// Tensor and scalar parameter names it needs, and the outputs it gives.
  virtual std::vector<std::string> tensorNames() const = 0;
  virtual std::vector<std::string> scalarNames() const { return {}; }
  virtual std::vector<std::string> outputNames() const = 0;
  /// Checks that `problem` holds everything element() reads, before it
  /// reads anything: every tensor and scalar it names, each tensor of a
  /// numeric (not bool) type and of the rank and extents that agree with
  /// the others (gemm: A [M, K], B [K, N], C [M, N]). Returns "" or what is
  /// wrong, naming the parameter.
  std::string validate(const Problem &problem) const;
  /// The expected value of `output` at `index`. May cache per row, so one
  /// Reference object serves one Problem, which validate() accepted.
  virtual double element(const Problem &problem, llvm::StringRef output,
                         llvm::ArrayRef<int64_t> index) = 0;

  /// The shapes element() relies on: one list of (tensor, dim names) per
  /// accepted form, e.g. {{"A", {"M", "K"}}, ...}; a name binds the extent
  /// it first meets, and every later use must agree. (Public so that a
  /// reference that wraps another can pass them on.)
  using Signature = std::vector<std::pair<std::string, std::vector<std::string>>>;
  virtual std::vector<Signature> signatures() const = 0;
};

/// References by name, and which one a kernel of a given name computes:
/// what a check takes instead of knowing any kernel (the examples' catalog
/// is examples/references/ExampleReferences.h).
class Catalog {
public:
  virtual ~Catalog() = default;
  /// A fresh reference by name, or null.
  virtual std::unique_ptr<Reference> make(llvm::StringRef name) const = 0;
  virtual std::vector<std::string> names() const = 0;
  /// The reference the kernel of this name computes, or "".
  virtual llvm::StringRef defaultFor(llvm::StringRef kernelName) const = 0;
};

/// The error of an output against its expected values, one element pair
/// at a time: the one rule every check uses (phobos-run --check, and
/// phobos-tune's float64 references, --expect and Python's `reference=`).
/// - A finite expected element contributes |got - expected|; a got that is
///   NaN or infinite there is a mismatch.
/// - A non-finite expected element matches only itself: +inf only +inf,
///   -inf only -inf, NaN only NaN; anything else is a mismatch.
/// - The relative error is the worst absolute error over the largest
///   |expected| of the finite expected elements, so an infinity in the
///   expected values neither sets the scale nor hides other errors.
/// A mismatch makes the relative error infinite.
class ErrorMeasure {
public:
  /// Adds one element pair; true when it is the worst so far (the first
  /// mismatch, else the largest absolute error), so that a caller can
  /// remember where it is.
  bool add(double got, double expected);
  /// max |got - expected| / max |finite expected|: 0 when every element
  /// matches exactly, infinity after a mismatch or when the finite expected
  /// elements are all 0 and some error is not.
  double maxRelativeError() const;
  /// Element pairs added, and those whose expected value was finite.
  int64_t count() const { return added; }
  int64_t finiteExpected() const { return finite; }

private:
  double worstAbsolute = 0, scale = 0;
  bool mismatch = false;
  int64_t added = 0, finite = 0;
};

/// The result of comparing one output with its reference.
struct Comparison {
  std::string output;
  int64_t elementsChecked = 0;
  /// ErrorMeasure's relative error over the checked elements (infinite for
  /// a mismatched NaN or infinity, or an unwritten element).
  double maxRelativeError = 0;
  /// The worst element and its values.
  std::vector<int64_t> worstIndex;
  double worstGot = 0, worstExpected = 0;
  /// Output elements (all of them, not only the checked ones) that still
  /// hold the poison written before the run: the kernel never stored them.
  int64_t unwritten = 0;
  std::vector<int64_t> firstUnwritten;
};

/// Compares `got` (the output after the run) with the reference: every
/// element when there are at most `fullCheckLimit`, else a seeded sample of
/// about `sampleCount` elements that always includes each axis's last index.
/// Every element is scanned for poison either way; an unwritten element
/// makes the error infinite.
Comparison compare(Reference &reference, const Problem &problem,
                   llvm::StringRef output, const HostTensor &got,
                   int64_t fullCheckLimit, int64_t sampleCount, uint64_t seed);

} // namespace phobos::reference

#endif // PHOBOS_REFERENCE_REFERENCE_H
