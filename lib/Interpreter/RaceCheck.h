//===- RaceCheck.h - Unordered accesses between CTAs ------------*- C++ -*-===//
//
// The interpreter's race check (phobos-run --race-check): a shadow of every
// element of the tensors a kernel writes records which CTAs wrote, read and
// atomically added to it, and which op did; an access by another CTA that
// the memory model leaves unordered (docs/language.md, "The memory model":
// nothing orders two CTAs' accesses but atomic additions among themselves)
// is a race, reported once per pair of ops and tensor with its first
// element and CTAs and a count. CTAs run on several threads: the shadow's
// words are atomics, and what a race is does not depend on the order the
// CTAs happen to run in.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_INTERPRETER_RACECHECK_H
#define PHOBOS_LIB_INTERPRETER_RACECHECK_H

#include "Phobos/Interpreter/Interpreter.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace phobos::interp {

class RaceChecker {
public:
  /// Shadows the tensors of `args` that `kernel` writes (and any argument
  /// that shares their memory); `grid` names the CTAs in reports.
  RaceChecker(tile::KernelOp kernel, llvm::ArrayRef<Argument> args,
              std::array<int64_t, 3> grid);

  /// Keeps which elements raced, for writeMap.
  void keepRacedElements() { keepRaced = true; }

  /// The bytes the shadow takes (checked against a budget by the caller).
  uint64_t shadowBytes() const { return bytes; }
  /// Allocates the shadow; false when it cannot be had.
  bool allocate();

  enum class Access { Read, Write, Atomic };
  struct Shadow;
  /// One op's accesses of one tensor by one CTA, looked up once per op:
  /// no shadow when the tensor is not shadowed.
  struct Site {
    Shadow *shadow = nullptr;
    uint64_t word = 0;
    Access access = Access::Read;
  };
  /// The site of CTA `cta`'s (its linear index) accesses of `tensor` in `op`.
  Site site(const TensorArg &tensor, int64_t cta, mlir::Operation *op,
            Access access);
  /// Records an access of element `flat` at `site`; `flat` < 0 (a masked
  /// element) is ignored.
  void record(const Site &site, int64_t flat);

  struct Shadow {
    int64_t elements = 0;
    unsigned param = 0;
    /// Per element: the first writer, two CTAs that read, two that added
    /// atomically (each (CTA + 1) << 20 | op id; 0: none).
    std::unique_ptr<std::atomic<uint64_t>[]> writer, reader[2], adder[2];
    /// Per element, with keepRacedElements: whether it raced (1), with a
    /// second writer (2) (written under the mutex, allocated on the first
    /// race).
    std::vector<uint8_t> raced;
  };

  /// The races found, one per pair of ops and tensor, in op order.
  std::vector<Race> races() const;

  /// Which CTA wrote each element of each shadowed tensor, after the run.
  WriteMap writeMap() const;

private:
  static uint64_t pack(int64_t cta, unsigned op) {
    return (uint64_t(cta + 1) << 20) | op;
  }
  static int64_t ctaOf(uint64_t word) { return int64_t(word >> 20) - 1; }
  static unsigned opOf(uint64_t word) { return unsigned(word & 0xFFFFF); }
  /// Keeps `word` in one of the two slots unless a slot has its CTA.
  static void remember(std::atomic<uint64_t> *slots[2], uint64_t word);
  void report(Shadow &shadow, int64_t flat, uint64_t earlier,
              Access earlierAccess, uint64_t later, Access laterAccess);
  std::array<int64_t, 3> ctaIndex(int64_t linear) const;

  std::array<int64_t, 3> grid;
  llvm::DenseMap<const void *, Shadow> shadows;
  llvm::DenseMap<mlir::Operation *, unsigned> opIds;
  std::vector<mlir::Operation *> ops;
  std::vector<llvm::SmallVector<int64_t, 4>> shapes;
  uint64_t bytes = 0;
  bool keepRaced = false;
  mutable std::mutex mutex;
  /// By the pair of ops (the smaller (op, access) first), their access
  /// kinds and the parameter.
  /// A race found, and the order its report is chosen by: the element's
  /// row-major offset, then the two accesses' words (CTA, op).
  struct Found {
    Race race;
    int64_t flat = 0;
    uint64_t first = 0, second = 0;
  };
  std::map<std::tuple<unsigned, unsigned, int, int, unsigned>, Found> found;
};

} // namespace phobos::interp

#endif // PHOBOS_LIB_INTERPRETER_RACECHECK_H
