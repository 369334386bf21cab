//===- Launcher.cpp - Binding arguments to a launch contract --------------===//
//
// Every check runs before any GPU call, so a wrong argument is reported by
// name instead of surfacing as an illegal address or a silently wrong
// result. The checks stop at the first problem.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/Launcher.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace phobos;

char LaunchError::ID = 0;

void LaunchError::log(llvm::raw_ostream &os) const {
  if (!param.empty())
    os << "argument '" << param << "': ";
  os << reason;
}

std::error_code LaunchError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

std::vector<void *> BoundLaunch::params() {
  std::vector<void *> pointers;
  pointers.reserve(storage.size());
  for (std::array<uint8_t, 8> &slot : storage)
    pointers.push_back(slot.data());
  for (TensorMap &map : tensorMaps)
    pointers.push_back(map.bytes);
  return pointers;
}

std::array<int64_t, 3> BoundLaunch::getGrid(int64_t residentCtas) const {
  if (!persistent)
    return grid;
  int64_t tiles = grid[0] * grid[1] * grid[2];
  return {residentCtas > 0 ? std::min(tiles, residentCtas) : tiles, 1, 1};
}

/// The shortest decimal that reads back as `value` ("1.5", not "1.500000").
static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  if (std::strtod(text, nullptr) != value)
    std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

static std::string formatList(llvm::ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return text;
}

/// "axis 1 (dim 'K')".
static std::string describeAxis(const ParamSlot &slot, size_t axis) {
  return llvm::formatv("axis {0} (dim '{1}')", axis, slot.dims[axis]).str();
}

static llvm::Error reject(llvm::StringRef param, const llvm::Twine &reason) {
  return llvm::make_error<LaunchError>(param.str(), reason.str());
}

namespace {
/// Which argument and axis first bound a dim, for the message when a later
/// one disagrees.
struct DimBinding {
  std::string param;
  size_t axis;
};
} // namespace

/// The tensor checks, in the order the first problem is reported.
static llvm::Error checkTensor(const LaunchContract &contract,
                               const ParamSlot &slot,
                               const TensorArgument &tensor,
                               LaunchContract::DimValues &dims,
                               llvm::StringMap<DimBinding> &boundBy) {
  const std::string &param = slot.name;
  // Kernels read whole 16-byte vectors where a row allows it.
  if (tensor.address == 0)
    return reject(param, "is a null pointer");
  if (tensor.address % 16 != 0)
    return reject(param,
                  llvm::formatv("data at {0:x} is not 16-byte aligned "
                                "(kernels read 16-byte vectors; a view that "
                                "starts mid-array can break this: pass a "
                                "copy)",
                                tensor.address));
  if (tensor.element != slot.element)
    return reject(param, llvm::formatv("expected {0} elements, got {1}",
                                       name(slot.element),
                                       !tensor.elementName.empty()
                                           ? llvm::StringRef(tensor.elementName)
                                           : name(*tensor.element)));
  size_t rank = slot.dims.size();
  if (tensor.shape.size() != rank)
    return reject(param, llvm::formatv("expected rank {0}, got {1}", rank,
                                       tensor.shape.size()));

  if (!tensor.strides.empty()) {
    if (tensor.strides.size() != rank)
      return reject(param, llvm::formatv("expected {0} strides, got {1}", rank,
                                         tensor.strides.size()));
    // Saturating: a product past 2^63 elements cannot be a real tensor, and
    // its strides then simply fail to match.
    std::vector<int64_t> dense(rank, 1);
    for (size_t axis = rank; axis-- > 1;)
      if (llvm::MulOverflow(dense[axis],
                            std::max<int64_t>(tensor.shape[axis], 0),
                            dense[axis - 1]))
        dense[axis - 1] = std::numeric_limits<int64_t>::max();
    for (size_t axis = 0; axis < rank; ++axis)
      // An axis of extent 1 is never stepped along, so its stride does not
      // matter (as in PyTorch's is_contiguous).
      if (tensor.shape[axis] != 1 && tensor.strides[axis] != dense[axis])
        return reject(param,
                      llvm::formatv("strides {0} are not dense row-major "
                                    "(expected {1}); kernels index tensors "
                                    "as dense: pass a contiguous copy",
                                    formatList(tensor.strides),
                                    formatList(dense)));
  }

  for (size_t axis = 0; axis < rank; ++axis) {
    int64_t expected =
        axis < slot.staticShape.size() ? slot.staticShape[axis] : -1;
    if (expected >= 0 && tensor.shape[axis] != expected)
      return reject(param,
                    llvm::formatv("{0} is {1} but the kernel was compiled "
                                  "for {2}",
                                  describeAxis(slot, axis), tensor.shape[axis],
                                  expected));
  }

  for (size_t axis = 0; axis < rank; ++axis) {
    const std::string &dim = slot.dims[axis];
    int64_t extent = tensor.shape[axis];
    auto [it, inserted] = dims.try_emplace(dim, extent);
    if (inserted) {
      boundBy[dim] = {param, axis};
      continue;
    }
    if (it->second == extent)
      continue;
    const DimBinding &first = boundBy[dim];
    if (first.param == param)
      return reject(param,
                    llvm::formatv("axes {0} and {1} are both dim '{2}' "
                                  "but are {3} and {4}",
                                  first.axis, axis, dim, it->second, extent));
    return reject(param, llvm::formatv("dim '{0}' is {1} here but {2} in "
                                       "argument '{3}'",
                                       dim, extent, it->second, first.param));
  }

  // The kernel computes per-axis offsets and bounds in `indexBits` signed
  // integers; a larger extent would wrap.
  unsigned indexBits = std::clamp(contract.indexBits, 2u, 64u);
  int64_t maxExtent = indexBits == 64 ? std::numeric_limits<int64_t>::max()
                                      : (int64_t(1) << (indexBits - 1)) - 1;
  for (size_t axis = 0; axis < rank; ++axis) {
    int64_t extent = tensor.shape[axis];
    if (extent < 1)
      return reject(param, llvm::formatv("{0} is {1}; extents must be at "
                                         "least 1",
                                         describeAxis(slot, axis), extent));
    if (extent > maxExtent)
      return reject(param,
                    llvm::formatv("{0} is {1}, beyond the kernel's {2}-bit "
                                  "index range (at most {3})",
                                  describeAxis(slot, axis), extent, indexBits,
                                  maxExtent));
  }

  for (size_t axis = 0; axis < rank; ++axis)
    for (const auto &[dim, multiple] : contract.aligned)
      if (dim == slot.dims[axis] && multiple > 0 &&
          tensor.shape[axis] % multiple != 0) {
        std::string message =
            llvm::formatv("breaks @aligned({0} = {1}): {0} is {2}", dim,
                          multiple, tensor.shape[axis]);
        // The promise's place in the user's source, when the contract has it.
        for (const auto &[promised, place] : contract.alignedAt)
          if (promised == dim)
            message += " (the promise is at " + place + ")";
        return reject(param, message);
      }
  return llvm::Error::success();
}

/// Checks a scalar and returns its bytes in the parameter's type.
static llvm::Expected<std::array<uint8_t, 8>>
packScalar(const ParamSlot &slot, const ScalarArgument &scalar) {
  double value = scalar.value;
  std::array<uint8_t, 8> bytes = {};
  auto store = [&](auto typed) {
    static_assert(sizeof typed <= 8);
    std::memcpy(bytes.data(), &typed, sizeof typed);
  };
  const std::string &param = slot.name;
  llvm::StringRef type = name(slot.element);
  switch (slot.element) {
  case ElementType::Bool:
    if (value != 0 && value != 1)
      return reject(param,
                    "expected a bool (0 or 1), got " + formatNumber(value));
    store(static_cast<uint8_t>(value));
    break;
  case ElementType::I32:
  case ElementType::I64: {
    if (scalar.integer) {
      int64_t exact = *scalar.integer;
      if (slot.element == ElementType::I32 &&
          (exact < INT32_MIN || exact > INT32_MAX))
        return reject(param,
                      llvm::formatv("{0} does not fit in {1}", exact, type));
      if (slot.element == ElementType::I32)
        store(static_cast<int32_t>(exact));
      else
        store(exact);
      break;
    }
    if (!std::isfinite(value) || std::trunc(value) != value)
      return reject(param, llvm::formatv("expected an integral {0}, got {1}",
                                         type, formatNumber(value)));
    bool is32 = slot.element == ElementType::I32;
    // 2^63 itself is a double but not an int64.
    double lo = is32 ? double(INT32_MIN) : -0x1p63;
    bool fits = is32 ? value <= double(INT32_MAX) : value < 0x1p63;
    if (value < lo || !fits)
      // Integral: every digit of the double, as the caller wrote an integer.
      return reject(param, llvm::formatv("{0:F0} does not fit in {1}", value,
                                         type));
    if (is32)
      store(static_cast<int32_t>(value));
    else
      store(static_cast<int64_t>(value));
    break;
  }
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::F32:
  case ElementType::F64: {
    // A finite value that rounds to infinity is a mistake, not a request.
    double rounded = roundTo(slot.element, value);
    if (std::isfinite(value) && std::isinf(rounded))
      return reject(param, llvm::formatv("{0} overflows {1} to infinity",
                                         formatNumber(value), type));
    if (slot.element == ElementType::F16)
      store(doubleToHalf(value));
    else if (slot.element == ElementType::BF16)
      store(doubleToBF16(value));
    else if (slot.element == ElementType::F32)
      store(static_cast<float>(value));
    else
      store(value);
    break;
  }
  }
  return bytes;
}

/// The kernel may assume that no two tensor arguments share memory when it
/// writes one of them (docs/language.md, "The memory model"): the compiler
/// orders a CTA's accesses of one tensor, not of two. Tensors are dense
/// row-major here (checkTensor), so each spans one byte range.
static llvm::Error checkDisjoint(const LaunchContract &contract,
                                 llvm::ArrayRef<LaunchArgument> args) {
  struct Span {
    const ParamSlot *slot;
    uint64_t begin, end;
  };
  llvm::SmallVector<Span, 8> spans;
  for (auto [slot, arg] : llvm::zip_equal(contract.params, args)) {
    const auto *tensor = std::get_if<TensorArgument>(&arg);
    if (!tensor || !tensor->element || tensor->placeholder)
      continue;
    // Saturating: a span past the address space overlaps everything after.
    uint64_t bytes = byteWidth(*tensor->element);
    for (int64_t extent : tensor->shape)
      bytes = extent <= 0 ? 0
              : bytes > UINT64_MAX / static_cast<uint64_t>(extent)
                  ? UINT64_MAX
                  : bytes * static_cast<uint64_t>(extent);
    if (bytes == 0)
      continue;
    bytes = std::min(bytes, UINT64_MAX - tensor->address);
    spans.push_back({&slot, tensor->address, tensor->address + bytes});
  }
  for (size_t i = 0; i < spans.size(); ++i)
    for (size_t j = i + 1; j < spans.size(); ++j) {
      const Span &a = spans[i], &b = spans[j];
      if (!(a.slot->written || b.slot->written) || a.end <= b.begin ||
          b.end <= a.begin)
        continue;
      const ParamSlot &written = a.slot->written ? *a.slot : *b.slot;
      return reject(
          b.slot->name,
          llvm::formatv("overlaps argument '{0}' in memory, and the kernel "
                        "writes '{1}': a kernel may assume that its tensor "
                        "arguments do not overlap (docs/language.md, \"The "
                        "memory model\"); pass a copy, or write the kernel "
                        "with one argument that it reads and writes",
                        a.slot->name, written.name));
    }
  return llvm::Error::success();
}

llvm::Expected<BoundLaunch>
phobos::bindParameters(const LaunchContract &contract,
                       llvm::ArrayRef<LaunchArgument> args,
                       TensorMapEncoder encoder) {
  if (args.size() != contract.params.size()) {
    std::string names;
    llvm::raw_string_ostream os(names);
    llvm::interleaveComma(contract.params, os,
                          [&](const ParamSlot &slot) { os << slot.name; });
    return reject("", llvm::formatv("expected {0} argument{1} ({2}), got {3}",
                                    contract.params.size(),
                                    contract.params.size() == 1 ? "" : "s",
                                    names, args.size()));
  }
  BoundLaunch launch;
  llvm::StringMap<DimBinding> boundBy;
  for (auto [slot, arg] : llvm::zip_equal(contract.params, args)) {
    if (slot.kind == ParamSlot::Kind::Tensor) {
      const auto *tensor = std::get_if<TensorArgument>(&arg);
      if (!tensor)
        return reject(slot.name, llvm::formatv("expected a tensor of {0}, got "
                                               "a scalar",
                                               name(slot.element)));
      if (llvm::Error error =
              checkTensor(contract, slot, *tensor, launch.dims, boundBy))
        return std::move(error);
      std::array<uint8_t, 8> pointer = {};
      std::memcpy(pointer.data(), &tensor->address, sizeof tensor->address);
      launch.storage.push_back(pointer);
      for (auto [axis, extent] : llvm::enumerate(tensor->shape)) {
        if (axis < slot.staticShape.size() && slot.staticShape[axis] >= 0)
          continue;
        std::array<uint8_t, 8> bytes = {};
        int32_t value = static_cast<int32_t>(extent);
        std::memcpy(bytes.data(), &value, sizeof value);
        launch.storage.push_back(bytes);
      }
      continue;
    }
    const auto *scalar = std::get_if<ScalarArgument>(&arg);
    if (!scalar)
      return reject(slot.name, llvm::formatv("expected a scalar ({0}), got a "
                                             "tensor",
                                             name(slot.element)));
    llvm::Expected<std::array<uint8_t, 8>> bytes =
        packScalar(slot, *scalar);
    if (!bytes)
      return bytes.takeError();
    launch.storage.push_back(*bytes);
  }

  if (llvm::Error error = checkDisjoint(contract, args))
    return std::move(error);

  // Tensor maps, for the tensors as bound.
  if (!contract.tensorMaps.empty() && !encoder)
    return reject("", "the kernel copies through TMA tensor maps, which this "
                      "launcher cannot encode");
  launch.tensorMaps.resize(contract.tensorMaps.size());
  for (size_t index = 0; index < contract.tensorMaps.size(); ++index) {
    const TensorMapSlot &map = contract.tensorMaps[index];
    auto slot = llvm::find_if(contract.params, [&](const ParamSlot &p) {
      return p.name == map.param;
    });
    const TensorArgument *tensor =
        slot == contract.params.end()
            ? nullptr
            : std::get_if<TensorArgument>(&args[slot - contract.params.begin()]);
    if (!tensor || tensor->shape.size() < 2 || tensor->shape.size() > 3)
      return reject(map.param, "a tensor map needs a 2-D or 3-D tensor");
    TensorMapRequest request;
    request.address = tensor->address;
    request.element = *tensor->element;
    size_t rank = tensor->shape.size();
    request.planes = rank == 3 ? tensor->shape[0] : 0;
    request.rows = tensor->shape[rank - 2];
    request.cols = tensor->shape[rank - 1];
    request.boxRows = map.boxRows;
    request.boxCols = map.boxCols;
    request.swizzleBytes = map.swizzleBytes;
    // TMA steps between rows in multiples of 16 bytes (the compiler only
    // chose it where @aligned or a static extent promised that).
    if ((request.cols * byteWidth(request.element)) % 16 != 0)
      return reject(map.param,
                    llvm::formatv("rows of {0} elements are not a multiple of "
                                  "16 bytes, which its TMA copies need",
                                  request.cols));
    if (llvm::Error error =
            encoder(request, launch.tensorMaps[index].bytes))
      return reject(map.param, llvm::toString(std::move(error)));
  }
  launch.persistent = contract.persistent;
  return std::move(launch);
}

llvm::Error phobos::checkPersistentGrid(const LaunchContract &contract,
                                        const LaunchContract::DimValues &dims,
                                        std::array<int64_t, 3> grid) {
  if (!contract.persistent)
    return llvm::Error::success();
  llvm::Expected<std::array<int64_t, 3>> inferred = contract.gridFor(dims);
  if (!inferred)
    return reject("", llvm::toString(inferred.takeError()));
  // A persistent kernel computes its tile grid from the extents, as the
  // contract infers it; another grid would not be the one it walks.
  if (grid == *inferred)
    return llvm::Error::success();
  return reject("", llvm::formatv("the kernel is persistent: its CTAs walk "
                                  "the grid ({0}, {1}, {2}) of its tiles, and "
                                  "the launcher chooses how many it starts; a "
                                  "grid ({3}, {4}, {5}) cannot be given",
                                  (*inferred)[0], (*inferred)[1],
                                  (*inferred)[2], grid[0], grid[1], grid[2]));
}

llvm::Error phobos::setGrid(const LaunchContract &contract,
                            BoundLaunch &launch,
                            std::optional<std::array<int64_t, 3>> grid) {
  if (grid && !contract.persistent) {
    launch.grid = *grid;
  } else {
    llvm::Expected<std::array<int64_t, 3>> inferred =
        contract.gridFor(launch.dims);
    if (!inferred)
      return reject("", llvm::toString(inferred.takeError()));
    launch.grid = *inferred;
    if (grid)
      if (llvm::Error error =
              checkPersistentGrid(contract, launch.dims, *grid))
        return error;
  }
  static const char axisNames[] = "xyz";
  if (launch.persistent) {
    // Its CTAs walk the tiles along x, whatever the tile grid's shape; the
    // tile index is an i32.
    int64_t tiles = launch.grid[0] * launch.grid[1] * launch.grid[2];
    if (launch.grid[0] < 1 || launch.grid[1] < 1 || launch.grid[2] < 1 ||
        tiles > std::numeric_limits<int32_t>::max())
      return reject("", llvm::formatv("the persistent kernel's grid ({0}, {1}, "
                                      "{2}) is not a valid grid of at most "
                                      "2^31-1 tiles",
                                      launch.grid[0], launch.grid[1],
                                      launch.grid[2]));
    return llvm::Error::success();
  }
  for (int axis = 0; axis < 3; ++axis) {
    // The hardware limits of gridDim.
    int64_t limit = axis == 0 ? std::numeric_limits<int32_t>::max() : 65535;
    int64_t extent = launch.grid[axis];
    if (extent < 1)
      return reject("", llvm::formatv("grid {0} extent is {1}; it must be at "
                                      "least 1",
                                      axisNames[axis], extent));
    if (extent > limit)
      return reject("", llvm::formatv("grid {0} extent is {1}, more than the "
                                      "{2} the GPU allows",
                                      axisNames[axis], extent, limit));
  }
  return llvm::Error::success();
}

llvm::Expected<BoundLaunch>
phobos::bindArguments(const LaunchContract &contract,
                      llvm::ArrayRef<LaunchArgument> args,
                      std::optional<std::array<int64_t, 3>> grid,
                      TensorMapEncoder encoder) {
  llvm::Expected<BoundLaunch> launch =
      bindParameters(contract, args, encoder);
  if (!launch)
    return launch.takeError();
  if (llvm::Error error = setGrid(contract, *launch, grid))
    return std::move(error);
  return launch;
}
