//===- Runtime.cpp - C API of the launch checks ---------------------------===//
//
// Thin wrappers over phobos::bindParameters and phobos::setGrid
// (include/Phobos/Runtime/Launcher.h).
//
//===----------------------------------------------------------------------===//

#include "phobos-c/Runtime.h"

#include "Wrap.h"

#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/Launcher.h"
#include "Phobos/Support/Json.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <type_traits>

using namespace phobos;
using namespace phobos::capi;

// The C API's and the runtime's names for cuTensorMapEncodeTiled's pointer.
static_assert(std::is_same_v<PhobosEncodeTiledFunction,
                             cuda::EncodeTiledFunction>);

namespace {
struct BoundObject {
  BoundLaunch launch;
  /// The dims in a fixed order, for the index-based accessors.
  std::vector<std::pair<std::string, int64_t>> dims;
};
} // namespace

static LaunchContract *unwrap(PhobosLaunchContract contract) {
  return static_cast<LaunchContract *>(contract.ptr);
}
static BoundObject *unwrap(PhobosBoundLaunch bound) {
  return static_cast<BoundObject *>(bound.ptr);
}

PhobosError phobosLaunchContractCreate(PhobosStringRef json,
                                       PhobosLaunchContract *contract) {
  if (!contract)
    return makeError("phobosLaunchContractCreate: the result is not optional");
  llvm::Expected<llvm::json::Value> value = phobos::parseJson(unwrap(json));
  if (!value)
    return makeError("launch contract: " + llvm::toString(value.takeError()));
  llvm::Expected<LaunchContract> parsed = LaunchContract::fromJSON(*value);
  if (!parsed)
    return makeError("launch contract: " + llvm::toString(parsed.takeError()));
  contract->ptr = new LaunchContract(std::move(*parsed));
  return {nullptr};
}

void phobosLaunchContractDestroy(PhobosLaunchContract contract) {
  delete unwrap(contract);
}

/// One C argument as the launcher's.
static LaunchArgument convert(const PhobosLaunchArgument &arg) {
  if (!arg.isTensor) {
    ScalarArgument scalar;
    scalar.value = arg.isInteger ? double(arg.intValue) : arg.floatValue;
    if (arg.isInteger)
      scalar.integer = arg.intValue;
    return scalar;
  }
  TensorArgument tensor;
  tensor.address = arg.address;
  llvm::StringRef element = unwrap(arg.elementType);
  tensor.element = parseElementType(element);
  tensor.elementName = unwrap(arg.elementName).str();
  if (tensor.elementName.empty())
    tensor.elementName = element.str();
  size_t rank = arg.rank > 0 ? size_t(arg.rank) : 0;
  if (arg.shape)
    tensor.shape.assign(arg.shape, arg.shape + rank);
  if (arg.strides)
    tensor.strides.assign(arg.strides, arg.strides + rank);
  return tensor;
}

PhobosError phobosLaunchBind(PhobosLaunchContract contract,
                             const PhobosLaunchArgument *args, intptr_t numArgs,
                             PhobosEncodeTiledFunction encodeTiled,
                             PhobosBoundLaunch *bound) {
  if (!contract.ptr || !bound || (numArgs > 0 && !args))
    return makeError("phobosLaunchBind: the contract, the arguments and the "
                     "result are not optional");
  std::vector<LaunchArgument> arguments;
  arguments.reserve(numArgs > 0 ? numArgs : 0);
  for (intptr_t index = 0; index < numArgs; ++index) {
    const PhobosLaunchArgument &arg = args[index];
    if (arg.isTensor && arg.rank > 0 && !arg.shape)
      return makeError(llvm::formatv("phobosLaunchBind: argument {0}: a "
                                     "tensor needs its shape",
                                     index));
    arguments.push_back(convert(arg));
  }
  auto encode = [&](const TensorMapRequest &request, void *map) {
    return cuda::encodeTensorMapWith(encodeTiled, request, map);
  };
  llvm::Expected<BoundLaunch> launch =
      bindParameters(*unwrap(contract), arguments,
                     encodeTiled ? TensorMapEncoder(encode) : nullptr);
  if (!launch)
    return wrapError(launch.takeError());
  auto *object = new BoundObject{std::move(*launch), {}};
  for (const auto &entry : object->launch.getDims())
    object->dims.emplace_back(entry.getKey().str(), entry.getValue());
  bound->ptr = object;
  return {nullptr};
}

PhobosError phobosBoundLaunchSetGrid(PhobosLaunchContract contract,
                                     PhobosBoundLaunch bound,
                                     const int64_t *grid) {
  if (!contract.ptr || !bound.ptr)
    return makeError("phobosBoundLaunchSetGrid: the contract and the bound "
                     "launch are not optional");
  std::optional<std::array<int64_t, 3>> given;
  if (grid)
    given = std::array<int64_t, 3>{grid[0], grid[1], grid[2]};
  return wrapError(setGrid(*unwrap(contract), unwrap(bound)->launch, given));
}

void phobosBoundLaunchGetGrid(PhobosBoundLaunch bound, int64_t residentCtas,
                              int64_t *grid) {
  std::array<int64_t, 3> value = unwrap(bound)->launch.getGrid(residentCtas);
  std::copy(value.begin(), value.end(), grid);
}

void phobosBoundLaunchGetTileGrid(PhobosBoundLaunch bound, int64_t *grid) {
  std::array<int64_t, 3> value = unwrap(bound)->launch.getTileGrid();
  std::copy(value.begin(), value.end(), grid);
}

intptr_t phobosBoundLaunchGetNumParams(PhobosBoundLaunch bound) {
  return unwrap(bound)->launch.getParamBytes().size();
}

const void *phobosBoundLaunchGetParam(PhobosBoundLaunch bound, intptr_t index) {
  return unwrap(bound)->launch.getParamBytes()[index].data();
}

intptr_t phobosBoundLaunchGetNumTensorMaps(PhobosBoundLaunch bound) {
  return unwrap(bound)->launch.getNumTensorMaps();
}

const void *phobosBoundLaunchGetTensorMap(PhobosBoundLaunch bound,
                                          intptr_t index) {
  return unwrap(bound)->launch.getTensorMap(index);
}

intptr_t phobosBoundLaunchGetNumDims(PhobosBoundLaunch bound) {
  return unwrap(bound)->dims.size();
}

PhobosStringRef phobosBoundLaunchGetDimName(PhobosBoundLaunch bound,
                                            intptr_t index) {
  return wrap(unwrap(bound)->dims[index].first);
}

int64_t phobosBoundLaunchGetDimValue(PhobosBoundLaunch bound, intptr_t index) {
  return unwrap(bound)->dims[index].second;
}

void phobosBoundLaunchDestroy(PhobosBoundLaunch bound) { delete unwrap(bound); }
