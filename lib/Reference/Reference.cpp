//===- Reference.cpp - Checking outputs against a float64 reference -------===//
//
// What every check shares, whatever the reference: the shapes a reference
// needs (validate), the comparison of an output with it (compare) and the
// one error rule (ErrorMeasure). The references themselves are elsewhere:
// the examples' in examples/references, linked by the tools that check them.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>
#include <random>

using namespace phobos;
using namespace phobos::reference;

namespace {

/// Row-major flat index of `index` in `shape`.
int64_t flatten(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> index) {
  int64_t flat = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis)
    flat = flat * shape[axis] + index[axis];
  return flat;
}

/// "[3, 4]".
std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, extent] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(extent);
  return text + "]";
}

/// "[M, K]".
std::string formatDims(llvm::ArrayRef<std::string> dims) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(dims))
    text += (i ? ", " : "") + dim;
  return text + "]";
}

} // namespace

std::string Reference::validate(const Problem &problem) const {
  for (const std::string &name : tensorNames()) {
    const HostTensor *tensor = problem.tensors.lookup(name);
    if (!tensor)
      return "needs a tensor parameter named '" + name + "'";
    if (tensor->getElementType() == ElementType::Bool)
      return "reads '" + name + "' as numbers, but it is a tensor of bool";
  }
  for (const std::string &name : scalarNames())
    if (!problem.scalars.count(name))
      return "needs a scalar parameter named '" + name + "'";
  // The first form whose ranks match decides; its extents must agree.
  std::vector<Signature> forms = signatures();
  std::string expected;
  for (const Signature &form : forms) {
    bool ranks = llvm::all_of(form, [&](const auto &entry) {
      return problem.tensors.lookup(entry.first)->getShape().size() ==
             entry.second.size();
    });
    if (!ranks) {
      for (const auto &[name, dims] : form)
        expected += (expected.empty() ? "" : ", ") + name + " " +
                    formatDims(dims);
      if (&form != &forms.back())
        expected += "; or ";
      continue;
    }
    llvm::StringMap<std::pair<int64_t, std::string>> bound;
    for (const auto &[name, dims] : form) {
      llvm::ArrayRef<int64_t> shape = problem.tensors.lookup(name)->getShape();
      for (auto [axis, dim] : llvm::enumerate(dims)) {
        auto [it, inserted] = bound.try_emplace(dim, shape[axis], name);
        if (!inserted && it->second.first != shape[axis])
          return "needs '" + name + "' of shape " + formatDims(dims) +
                 ", but its extent " + dim + " is " +
                 std::to_string(shape[axis]) + " where '" + it->second.second +
                 "' has " + dim + " = " + std::to_string(it->second.first) +
                 " (got '" + name + "' of shape " + formatShape(shape) + ")";
      }
    }
    return "";
  }
  std::string got;
  for (const std::string &name : tensorNames())
    got += (got.empty() ? "" : ", ") + name + " " +
           formatShape(problem.tensors.lookup(name)->getShape());
  return "needs tensors of the ranks " + expected + "; got " + got;
}

Comparison phobos::reference::compare(Reference &reference,
                                      const Problem &problem,
                                      llvm::StringRef output,
                                      const HostTensor &got,
                                      int64_t fullCheckLimit,
                                      int64_t sampleCount, uint64_t seed) {
  Comparison result;
  result.output = output.str();
  llvm::ArrayRef<int64_t> shape = got.getShape();
  int64_t total = got.numElements();
  std::vector<std::vector<int64_t>> indices;
  auto unflatten = [&](int64_t flat) {
    std::vector<int64_t> index(shape.size());
    for (size_t axis = shape.size(); axis-- > 0;) {
      index[axis] = flat % shape[axis];
      flat /= shape[axis];
    }
    return index;
  };
  if (total <= fullCheckLimit) {
    for (int64_t flat = 0; flat < total; ++flat)
      indices.push_back(unflatten(flat));
  } else {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> pick(0, total - 1);
    for (int64_t s = 0; s < sampleCount; ++s)
      indices.push_back(unflatten(pick(rng)));
    // The ragged edges: the last index on every axis, and the last element.
    for (size_t axis = 0; axis < shape.size(); ++axis)
      for (int s = 0; s < 4; ++s) {
        std::vector<int64_t> index = unflatten(pick(rng));
        index[axis] = shape[axis] - 1;
        indices.push_back(index);
      }
    indices.push_back(unflatten(total - 1));
  }

  ErrorMeasure measure;
  for (const std::vector<int64_t> &index : indices) {
    double expected = reference.element(problem, output, index);
    double value = got.get(flatten(shape, index));
    if (measure.add(value, expected)) {
      result.worstIndex = index;
      result.worstGot = value;
      result.worstExpected = expected;
    }
  }
  result.elementsChecked = static_cast<int64_t>(indices.size());
  // Outputs are poisoned before the run: a sampled check must not miss
  // elements the kernel never stored.
  for (int64_t flat = 0; flat < total; ++flat)
    if (got.isPoisoned(flat) && ++result.unwritten == 1)
      result.firstUnwritten = unflatten(flat);
  result.maxRelativeError =
      result.unwritten > 0 ? INFINITY : measure.maxRelativeError();
  return result;
}

bool ErrorMeasure::add(double got, double expected) {
  ++added;
  if (!std::isfinite(expected)) {
    // Only the same infinity, or a NaN for a NaN.
    bool same = std::isnan(expected) ? std::isnan(got) : got == expected;
    if (same)
      return added == 1;
    bool first = !mismatch;
    mismatch = true;
    return first;
  }
  ++finite;
  scale = std::max(scale, std::fabs(expected));
  if (!std::isfinite(got)) {
    bool first = !mismatch;
    mismatch = true;
    return first;
  }
  double error = std::fabs(got - expected);
  if (mismatch || (error <= worstAbsolute && added > 1))
    return false;
  worstAbsolute = error;
  return true;
}

double ErrorMeasure::maxRelativeError() const {
  if (mismatch)
    return INFINITY;
  if (worstAbsolute == 0)
    return 0;
  return scale > 0 ? worstAbsolute / scale : INFINITY;
}
