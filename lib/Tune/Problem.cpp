//===- Problem.cpp - The autotuner's problems, pruning and checks ---------===//
//
// How a problem (dims, scalars, fills) becomes tensors for one contract,
// which variants cannot run on it, the small problem the interpreter checks
// on, and how outputs are compared.
//
//===----------------------------------------------------------------------===//

#include "TuneInternal.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Reference/Reference.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

using namespace phobos;
using namespace phobos::tune;

std::string phobos::tune::variantText(const Variant &variant) {
  std::string text;
  for (auto &[name, value] : variant)
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text.empty() ? "-" : text;
}

llvm::Expected<Instance>
phobos::tune::instantiate(const LaunchContract &contract,
                          const Problem &problem,
                          const llvm::StringMap<double> &scalars,
                          std::mt19937_64 &rng) {
  Instance instance;
  instance.tensors.resize(contract.params.size());
  for (const ParamSlot &slot : contract.params)
    for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape)) {
      auto given = problem.inputs.find(slot.name);
      if (given != problem.inputs.end())
        continue;
      if (extent >= 0) {
        instance.dims.try_emplace(dim, extent);
        continue;
      }
      auto value = problem.dims.find(dim);
      if (value == problem.dims.end())
        return llvm::createStringError("the problem needs --dim %s=V",
                                       dim.c_str());
      instance.dims.try_emplace(dim, value->second);
    }
  // Dims bound by given tensors.
  for (const ParamSlot &slot : contract.params) {
    auto given = problem.inputs.find(slot.name);
    if (given == problem.inputs.end())
      continue;
    if (given->second.getElementType() != slot.element)
      return llvm::createStringError(
          "tensor '%s' is given with %s elements but the kernel takes %s",
          slot.name.c_str(), name(given->second.getElementType()).str().c_str(),
          name(slot.element).str().c_str());
    if (given->second.getShape().size() != slot.dims.size())
      return llvm::createStringError("tensor '%s' is given with rank %zu but "
                                     "the kernel takes rank %zu",
                                     slot.name.c_str(),
                                     given->second.getShape().size(),
                                     slot.dims.size());
    for (auto [axis, dim] : llvm::enumerate(slot.dims)) {
      int64_t extent = given->second.getShape()[axis];
      auto [it, inserted] = instance.dims.try_emplace(dim, extent);
      if (!inserted && it->second != extent)
        return llvm::createStringError(
            "tensor '%s' has %s = %lld but the problem has %lld",
            slot.name.c_str(), dim.c_str(), static_cast<long long>(extent),
            static_cast<long long>(it->second));
    }
  }
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      auto given = scalars.find(slot.name);
      double value =
          given != scalars.end()
              ? given->second
              : (isFloat(slot.element)
                     ? 0.5 + std::uniform_real_distribution<double>()(rng)
                     : 1.0);
      instance.scalars[slot.name] = roundTo(slot.element, value);
      if (auto exact = problem.integerScalars.find(slot.name);
          exact != problem.integerScalars.end() && !isFloat(slot.element))
        instance.integerScalars[slot.name] = exact->second;
      continue;
    }
    auto given = problem.inputs.find(slot.name);
    if (given != problem.inputs.end()) {
      instance.tensors[index] = given->second;
      continue;
    }
    llvm::SmallVector<int64_t, 4> shape;
    for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
      shape.push_back(extent >= 0 ? extent : instance.dims.lookup(dim));
    HostTensor &tensor = instance.tensors[index] = HostTensor(slot.element, shape);
    std::string howText = problem.inits.lookup(slot.name);
    llvm::StringRef how = howText;
    if (!how.empty()) {
      if (llvm::Error error = tensor.fill(how, rng))
        return llvm::createStringError("--init " + slot.name + "=" + howText +
                                       ": " + llvm::toString(std::move(error)));
    } else if (slot.read || !slot.written) {
      tensor.fillRandom(rng);
    } else {
      tensor.poison(); // written only: every element must be stored
    }
  }
  return instance;
}

llvm::Expected<std::array<int64_t, 3>>
phobos::tune::gridFor(const LaunchContract &contract, const Problem &problem,
                      const Variant &variant) {
  auto explicitGrid = problem.grids.find(variantText(variant));
  if (explicitGrid != problem.grids.end())
    return explicitGrid->second;
  if (problem.grid)
    return *problem.grid;
  return contract.gridFor(problem.dims);
}

std::string phobos::tune::pruneReason(const LaunchContract &contract,
                                      const llvm::StringMap<int64_t> &dims) {
  for (const ParamSlot &slot : contract.params)
    for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape)) {
      auto given = dims.find(dim);
      if (extent >= 0 && given != dims.end() && given->second != extent)
        return llvm::formatv("{0} is {1} in this variant but {2} in the "
                             "problem",
                             dim, extent, given->second)
            .str();
    }
  for (auto &[dim, multiple] : contract.aligned) {
    auto given = dims.find(dim);
    if (given != dims.end() && given->second % multiple != 0)
      return llvm::formatv("breaks @aligned({0} = {1}): {0} is {2}", dim,
                           multiple, given->second)
          .str();
  }
  return "";
}

double phobos::tune::maxRelativeError(const HostTensor &got,
                                      const HostTensor &expected) {
  if (got.getShape() != expected.getShape())
    return INFINITY;
  reference::ErrorMeasure measure;
  for (int64_t i = 0, n = got.numElements(); i < n; ++i)
    measure.add(got.get(i), expected.get(i));
  return measure.maxRelativeError();
}

llvm::StringMap<int64_t>
phobos::tune::smallCheckDims(const llvm::StringMap<int64_t> &dims,
                             const std::vector<std::vector<std::string>> &tensors,
                             const llvm::StringMap<int64_t> &multiples) {
  constexpr int64_t kMaxElements = int64_t(1) << 17;
  llvm::StringMap<int64_t> small = dims;
  auto elements = [&](const std::vector<std::string> &names) {
    int64_t count = 1;
    for (const std::string &name : names) {
      auto value = small.find(name);
      int64_t extent = value != small.end() ? value->second : 1;
      if (llvm::all_of(name, [](char c) { return c >= '0' && c <= '9'; }))
        llvm::StringRef(name).getAsInteger(10, extent);
      count *= extent;
    }
    return count;
  };
  for (int round = 0; round < 64; ++round) {
    // The largest tensor over the limit, and its largest halvable dim.
    const std::vector<std::string> *largest = nullptr;
    for (const std::vector<std::string> &names : tensors)
      if (elements(names) > kMaxElements &&
          (!largest || elements(names) > elements(*largest)))
        largest = &names;
    if (!largest)
      break;
    std::string pick;
    int64_t pickValue = 0;
    for (const std::string &name : *largest) {
      auto value = small.find(name);
      if (value == small.end())
        continue;
      int64_t multiple = std::max<int64_t>(1, multiples.lookup(name));
      int64_t halved = (value->second / 2) / multiple * multiple;
      if (halved >= 1 && halved < value->second && value->second > pickValue) {
        pick = name;
        pickValue = value->second;
      }
    }
    if (pick.empty())
      break;
    int64_t multiple = std::max<int64_t>(1, multiples.lookup(pick));
    small[pick] = (pickValue / 2) / multiple * multiple;
  }
  return small;
}
