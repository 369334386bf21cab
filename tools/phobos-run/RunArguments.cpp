//===- RunArguments.cpp - phobos-run's command line bound to a kernel ----===//
//
// The arguments of one run, from the command line and the kernel's launch
// contract: tensors read from .npy files (--input) and the files to write
// (--output), the dims, the @aligned promises, the scalars, the grid and how
// each tensor is filled. Everything the launch will check is checked, and
// the host memory the run needs is counted, before any tensor is allocated.
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/Launcher.h"
#include "Phobos/Runtime/NpyFile.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <random>
#include <unistd.h>

namespace phobos::run {

using tools::parseBinding;

namespace {

/// Memory this machine can give the run: MemAvailable, else the physical
/// memory; 0 when unknown.
uint64_t availableHostBytes() {
  if (auto file = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo")) {
    llvm::SmallVector<llvm::StringRef> lines;
    (*file)->getBuffer().split(lines, '\n');
    for (llvm::StringRef line : lines)
      if (line.consume_front("MemAvailable:")) {
        // "MemAvailable:   12345678 kB"
        uint64_t kib = 0;
        if (line.trim().take_while(llvm::isDigit).getAsInteger(10, kib))
          break;
        return kib * 1024;
      }
  }
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

/// Elements and bytes of a tensor of `shape`, or nullopt when a product
/// overflows int64.
std::optional<std::pair<int64_t, int64_t>>
tensorSize(ElementType element, llvm::ArrayRef<int64_t> shape) {
  int64_t elements = 1, bytes = 0;
  for (int64_t extent : shape)
    if (llvm::MulOverflow(elements, extent, elements))
      return std::nullopt;
  if (llvm::MulOverflow(elements, int64_t(byteWidth(element)), bytes))
    return std::nullopt;
  return std::make_pair(elements, bytes);
}

/// The parameter that `spec`, given with --`option` as NAME=`form`, names,
/// which must be a tensor or (`kind`) a scalar one; `name` and `value` are
/// its two sides. A usage error otherwise.
const ParamSlot &namedParam(const LaunchContract &contract,
                            llvm::StringRef option, llvm::StringRef form,
                            llvm::StringRef spec, ParamSlot::Kind kind,
                            llvm::StringRef &name, llvm::StringRef &value) {
  if (!parseBinding(spec, name, value))
    usage("--" + option + " expects NAME=" + form + ", got '" + spec + "'");
  const ParamSlot *slot = contract.findParam(name);
  if (!slot || slot->kind != kind)
    usage("--" + option + ": '" + name + "' is not a " +
          (kind == ParamSlot::Kind::Tensor ? "tensor" : "scalar") +
          " parameter");
  return *slot;
}

/// --input: tensors read from .npy files; their shapes bind dims.
std::map<std::string, HostTensor> readInputs(const LaunchContract &contract) {
  std::map<std::string, HostTensor> inputs;
  for (const std::string &spec : inputSpecs) {
    llvm::StringRef name, path;
    const ParamSlot *slot = &namedParam(contract, "input", "FILE.npy", spec,
                                        ParamSlot::Kind::Tensor, name, path);
    if (inputs.count(name.str()))
      usage("--input " + name + " is given twice");
    uint64_t fileBytes = 0;
    uint64_t limit =
        maxHostBytes ? maxHostBytes.getValue() : availableHostBytes();
    if (!llvm::sys::fs::file_size(path, fileBytes) && limit &&
        fileBytes > limit)
      usage("--input " + name + ": '" + path + "' holds " +
            formatBytes(fileBytes) + ", more than the " + formatBytes(limit) +
            " of host memory the run may use (--max-host-bytes)");
    llvm::Expected<HostTensor> tensor = readNpy(path);
    if (!tensor)
      usage("--input " + name + ": " + llvm::toString(tensor.takeError()));
    if (tensor->getElementType() != slot->element)
      usage("--input " + name + ": the file holds " +
            phobos::name(tensor->getElementType()) + " elements but '" + name +
            "' is a tensor of " + phobos::name(slot->element));
    if (tensor->getShape().size() != slot->dims.size())
      usage("--input " + name + ": the file holds a rank-" +
            llvm::Twine(tensor->getShape().size()) + " array but '" + name +
            "' has rank " + llvm::Twine(slot->dims.size()));
    inputs[name.str()] = std::move(*tensor);
  }
  return inputs;
}

/// --output: the .npy file each tensor is written to after the run.
llvm::StringMap<std::string> readOutputs(const LaunchContract &contract) {
  llvm::StringMap<std::string> outputs;
  for (const std::string &spec : outputSpecs) {
    llvm::StringRef name, path;
    namedParam(contract, "output", "FILE.npy", spec, ParamSlot::Kind::Tensor,
               name, path);
    if (!outputs.try_emplace(name, path.str()).second)
      usage("--output " + name + " is given twice");
  }
  return outputs;
}

/// Dims: every launch-bound dim must be given (with --dim or by an
/// --input's shape); compile-time ones may be given if they agree.
void bindDims(const LaunchContract &contract, Bindings &bindings) {
  LaunchContract::DimValues &dims = bindings.dims;
  bindings.dynamic = contract.dynamicDims();
  llvm::StringMap<int64_t> given = kernelOptions.dims();
  // In the order given, so that the first wrong --dim is the one reported.
  for (const std::string &spec : kernelOptions.dimSpecs) {
    llvm::StringRef name, text;
    parseBinding(spec, name, text);
    int64_t value = given.lookup(name);
    bool known = llvm::is_contained(bindings.dynamic, name.str());
    for (const ParamSlot &slot : contract.params)
      for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
        if (dim == name && extent >= 0) {
          if (extent != value)
            usage("--dim " + name + "=" + text + ": in this variant '" + name +
                  "' is " + llvm::Twine(extent));
          known = true;
        }
    if (!known)
      usage("--dim: '" + name + "' is not a dim of kernel '" +
            contract.kernel + "'");
    dims.try_emplace(name, value);
  }
  // Dims an --input binds (the launcher's checks in checkLaunch catch a
  // tensor that disagrees with another).
  for (const ParamSlot &slot : contract.params) {
    auto input = bindings.inputs.find(slot.name);
    if (input == bindings.inputs.end())
      continue;
    for (auto [axis, dim] : llvm::enumerate(slot.dims))
      if (slot.staticShape[axis] < 0)
        dims.try_emplace(dim, input->second.getShape()[axis]);
  }
  for (const std::string &name : bindings.dynamic)
    if (!dims.count(name))
      usage("missing --dim " + name + "=V (kernel '" + contract.kernel +
            "' needs every dim bound at launch)");
}

} // namespace

Bindings readBindings(const LaunchContract &contract) {
  Bindings bindings;
  bindings.inputs = readInputs(contract);
  bindings.outputs = readOutputs(contract);
  bindDims(contract, bindings);
  return bindings;
}

namespace {

/// A --dim that breaks an @aligned promise is refused at the promise (the
/// `.ph` line, or the Python line through --span-map) with exit status 2.
void checkAlignedDims(tile::KernelOp kernel, const LaunchContract &contract,
                      const LaunchContract::DimValues &dims) {
  for (auto &[name, multiple] : contract.aligned) {
    int64_t value = dims.lookup(name);
    if (!value || value % multiple == 0)
      continue;
    std::string message = ("--dim " + name + "=" + llvm::Twine(value) +
                           " breaks the kernel's @aligned promise: '" + name +
                           "' must be a multiple of " + llvm::Twine(multiple))
                              .str();
    mlir::LocationAttr place = kernel.getAlignedPromiseLoc(name);
    if (!place)
      usage(message);
    mlir::emitError(place) << message;
    std::exit(2);
  }
}

/// --init: how each tensor is filled, as given.
llvm::StringMap<std::string> readInits(const LaunchContract &contract) {
  llvm::StringMap<std::string> inits = measure.inits();
  for (const std::string &spec : measure.initSpecs) {
    llvm::StringRef name, how;
    namedParam(contract, "init", "random|uniform:LO:HI|iota|V", spec,
               ParamSlot::Kind::Tensor, name, how);
  }
  return inits;
}

/// The scalars given with --scalar.
struct GivenScalars {
  llvm::StringMap<double> values;
  /// Integer scalars exactly, not through a double.
  llvm::StringMap<int64_t> integers;
};

GivenScalars readScalars(const LaunchContract &contract) {
  GivenScalars scalars;
  for (const std::string &spec : kernelOptions.scalarSpecs) {
    llvm::StringRef name, text;
    const ParamSlot *slot = &namedParam(contract, "scalar", "V", spec,
                                        ParamSlot::Kind::Scalar, name, text);
    if (scalars.values.count(name))
      usage("--scalar " + name + " is given twice");
    double value;
    if (!isFloat(slot->element)) {
      int64_t integer;
      if (text.getAsInteger(10, integer))
        usage("--scalar " + name + ": '" + text + "' is not an integer");
      scalars.integers[name] = integer;
      value = static_cast<double>(integer);
    } else if (text.getAsDouble(value)) {
      usage("--scalar " + name + ": '" + text + "' is not a number");
    } else if (llvm::Expected<ElementValue> exact =
                   parseElementValue(slot->element, text)) {
      value = exact->f; // rounded once, straight from the text
    } else {
      // Beyond the type: the launcher's check names the argument.
      llvm::consumeError(exact.takeError());
    }
    if (slot->element == ElementType::Bool && value != 0 && value != 1)
      usage("--scalar " + name + "=" + text + ": a bool scalar is 0 or 1");
    scalars.values[name] = value;
  }
  return scalars;
}

/// --grid, else the grid the contract infers from the dims.
std::array<int64_t, 3> readGrid(const LaunchContract &contract,
                                const LaunchContract::DimValues &dims) {
  if (std::optional<std::array<int64_t, 3>> grid = kernelOptions.grid())
    return *grid;
  llvm::Expected<std::array<int64_t, 3>> inferred = contract.gridFor(dims);
  if (!inferred)
    usage(llvm::toString(inferred.takeError()) + " (--grid X,Y,Z)");
  return *inferred;
}

using Shapes = llvm::StringMap<llvm::SmallVector<int64_t, 4>>;

/// Everything the launch will check, checked now, before any tensor is
/// allocated: dims, extents, @aligned, scalars (a value out of its type's
/// range), the grid's hardware limits (for the interpreter too). Returns
/// each tensor's shape.
Shapes checkLaunch(const LaunchContract &contract, const Bindings &bindings,
                   const llvm::StringMap<double> &scalars,
                   const llvm::StringMap<int64_t> &integers,
                   std::array<int64_t, 3> grid) {
  Shapes shapes;
  std::vector<LaunchArgument> checked;
  for (const ParamSlot &slot : contract.params) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      // Unspecified scalars take values valid for every type.
      auto given = scalars.find(slot.name);
      auto exact = integers.find(slot.name);
      checked.push_back(ScalarArgument{
          given != scalars.end() ? given->second : 1.0,
          exact != integers.end() ? std::optional<int64_t>(exact->second)
                                  : std::nullopt});
      continue;
    }
    llvm::SmallVector<int64_t, 4> shape;
    if (auto input = bindings.inputs.find(slot.name);
        input != bindings.inputs.end())
      shape.assign(input->second.getShape().begin(),
                   input->second.getShape().end());
    else
      for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
        shape.push_back(extent >= 0 ? extent : bindings.dims.lookup(dim));
    TensorArgument argument;
    // Not allocated yet: neither dereferenced nor compared for overlap.
    argument.address = 16;
    argument.placeholder = true;
    argument.element = slot.element;
    argument.shape.assign(shape.begin(), shape.end());
    checked.push_back(std::move(argument));
    shapes[slot.name] = std::move(shape);
  }
  llvm::Expected<BoundLaunch> bound =
      bindArguments(contract, checked, grid, cuda::encodeTensorMap);
  if (!bound) {
    std::string hint;
    llvm::handleAllErrors(bound.takeError(), [&](const LaunchError &error) {
      const ParamSlot *slot = contract.findParam(error.getParam());
      hint = llvm::toString(llvm::make_error<LaunchError>(error));
      if (!slot)
        hint += kernelOptions.gridSpec.empty()
                    ? " (the grid follows from the dims: choose smaller "
                      "--dim values, or give --grid)"
                    : " (--grid)";
      else if (slot->kind == ParamSlot::Kind::Scalar)
        hint += " (--scalar " + slot->name + "=V)";
      else
        hint += " (--dim, or the array given with --input)";
    });
    usage(hint);
  }
  return shapes;
}

/// Host memory: every tensor is held twice (the run's copy and the inputs
/// kept for the check), three times when the interpreter times repeats.
void checkHostMemory(const LaunchContract &contract, const Shapes &shapes) {
  uint64_t limit =
      maxHostBytes ? maxHostBytes.getValue() : availableHostBytes();
  unsigned copies = 2 + (interpret && bench ? 1 : 0);
  uint64_t total = 0;
  std::string largest;
  int64_t largestBytes = -1;
  for (const ParamSlot &slot : contract.params) {
    if (slot.kind != ParamSlot::Kind::Tensor)
      continue;
    std::optional<std::pair<int64_t, int64_t>> size =
        tensorSize(slot.element, shapes.lookup(slot.name));
    if (!size)
      usage("argument '" + slot.name + "' would have more than 2^63 elements "
            "or bytes; choose smaller --dim values");
    if (size->second > largestBytes) {
      largestBytes = size->second;
      largest = slot.name;
    }
    // Each size is below 2^63: three copies fit in 128 bits' worth of
    // saturation.
    uint64_t bytes = uint64_t(size->second);
    total = bytes > (UINT64_MAX - total) / copies ? UINT64_MAX
                                                  : total + bytes * copies;
  }
  if (limit && total > limit)
    usage("the run needs " + formatBytes(total) +
          " of host memory for its tensors (each held " + llvm::Twine(copies) +
          " times; the largest is '" + largest + "', " +
          formatBytes(largestBytes) + "), more than the " + formatBytes(limit) +
          (maxHostBytes ? " --max-host-bytes allows"
                        : " this machine has available (--max-host-bytes "
                          "sets the limit)") +
          "; choose smaller --dim values");
}

/// Fills the tensors (--input, --init, seeded random data, or poison for
/// outputs only written) and gives the scalars not given a seeded value.
void fillArguments(const LaunchContract &contract, const Bindings &bindings,
                   const llvm::StringMap<std::string> &inits,
                   const GivenScalars &scalars, Arguments &arguments) {
  std::mt19937_64 rng(measure.seed);
  std::vector<HostTensor> &tensors = arguments.tensors;
  reference::Problem &referenceInputs = arguments.referenceInputs;
  tensors.resize(contract.params.size());
  arguments.initial.resize(contract.params.size());
  referenceInputs.scalars = scalars.values;
  arguments.integerScalars = scalars.integers;
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      if (!scalars.values.count(slot.name)) {
        // Unspecified float scalars take a seeded value in [0.5, 1.5).
        double value = isFloat(slot.element)
                           ? 0.5 + std::uniform_real_distribution<double>()(rng)
                           : 1.0;
        referenceInputs.scalars[slot.name] = roundTo(slot.element, value);
      }
      interp::ScalarArg scalar;
      scalar.floatValue = referenceInputs.scalars[slot.name];
      auto exact = scalars.integers.find(slot.name);
      scalar.intValue = exact != scalars.integers.end()
                            ? exact->second
                            : static_cast<int64_t>(scalar.floatValue);
      arguments.interpreted.push_back(scalar);
      continue;
    }
    llvm::SmallVector<int64_t, 4> shape;
    for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
      shape.push_back(extent >= 0 ? extent : bindings.dims.lookup(dim));
    HostTensor &tensor = tensors[index] = HostTensor(slot.element, shape);
    std::string how = inits.lookup(slot.name);
    if (auto input = bindings.inputs.find(slot.name);
        input != bindings.inputs.end()) {
      if (!how.empty())
        usage("--init " + slot.name + ": the tensor is read with --input");
      tensor = input->second;
    } else if (!how.empty()) {
      if (llvm::Error error = tensor.fill(how, rng))
        usage("--init " + slot.name + "=" + how + ": " +
              llvm::toString(std::move(error)));
    } else if (slot.read || !slot.written) {
      tensor.fillRandom(rng);
    } else {
      tensor.poison(); // written only: every element must be stored
    }
    arguments.initial[index] = tensor;
    referenceInputs.tensors[slot.name] = &arguments.initial[index];
  }
  for (auto [index, slot] : llvm::enumerate(contract.params))
    if (slot.kind == ParamSlot::Kind::Tensor) {
      interp::TensorArg arg;
      arg.data = tensors[index].data();
      arg.elementType = slot.element;
      arg.shape.assign(tensors[index].getShape().begin(),
                       tensors[index].getShape().end());
      arguments.interpreted.insert(arguments.interpreted.begin() + index, arg);
    }
}

} // namespace

/// The arguments, every option about them checked before any tensor is
/// allocated.
void prepareArguments(tile::KernelOp kernel, const LaunchContract &contract,
                      const Bindings &bindings, Arguments &arguments) {
  checkAlignedDims(kernel, contract, bindings.dims);
  llvm::StringMap<std::string> inits = readInits(contract);
  GivenScalars scalars = readScalars(contract);
  arguments.grid = readGrid(contract, bindings.dims);
  Shapes shapes =
      checkLaunch(contract, bindings, scalars.values, scalars.integers,
                  arguments.grid);
  checkHostMemory(contract, shapes);
  fillArguments(contract, bindings, inits, scalars, arguments);
}

/// Arrays from files can disagree with each other: the launcher's checks
/// say how, by argument.
void checkInputsAgree(const LaunchContract &contract,
                      const Arguments &arguments) {
  std::vector<LaunchArgument> checked;
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      auto exact = arguments.integerScalars.find(slot.name);
      checked.push_back(ScalarArgument{
          arguments.referenceInputs.scalars.lookup(slot.name),
          exact != arguments.integerScalars.end()
              ? std::optional<int64_t>(exact->second)
              : std::nullopt});
      continue;
    }
    const HostTensor &tensor = arguments.tensors[index];
    TensorArgument argument;
    argument.address = reinterpret_cast<uintptr_t>(tensor.data());
    argument.element = slot.element;
    argument.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    checked.push_back(std::move(argument));
  }
  llvm::Expected<BoundLaunch> bound =
      bindArguments(contract, checked, arguments.grid, cuda::encodeTensorMap);
  if (!bound)
    usage(llvm::toString(bound.takeError()));
}

std::string formatBytes(uint64_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes >= (uint64_t(1) << 30))
    text += llvm::formatv(" ({0:F1} GiB)", double(bytes) / (1 << 30)).str();
  else if (bytes >= (uint64_t(1) << 20))
    text += llvm::formatv(" ({0:F1} MiB)", double(bytes) / (1 << 20)).str();
  return text;
}

} // namespace phobos::run
