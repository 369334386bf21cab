//===- Backends.cpp - Where the autotuner runs variants -------------------===//
//
// The GPU backend loads each variant (the cubin, else the PTX), runs it on
// a copy of the check problem's tensors and times it on the timed problem:
// one stream, CUDA events around each launch, the L2 cache flushed (a
// memset of twice its size, on the same stream) before each timed launch.
// The interpreter backend stands in for a GPU: it runs the variant's tile
// kernel on the CPU and "times" it with the wall clock.
//
//===----------------------------------------------------------------------===//

#include "TuneInternal.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Interpreter/Interpreter.h"
#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/Launcher.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace phobos;
using namespace phobos::tune;

namespace {

//===----------------------------------------------------------------------===//
// GPU
//===----------------------------------------------------------------------===//

struct GpuLoaded : Loaded {
  cuda::Module module;
  cuda::Function function;
  /// A persistent kernel's launch: the CTAs the GPU holds at once (asked
  /// once here, not between the timing events); 0 otherwise.
  int64_t residentCtas = 0;
};

class GpuBackend : public Backend {
public:
  GpuBackend(cuda::CudaDriver &driver, std::string target, cuda::Stream stream)
      : driver(driver), target(std::move(target)), stream(std::move(stream)) {}

  std::string describe() const override {
    return "gpu " + driver.describeDevice();
  }
  std::string chip() const override { return target; }
  int64_t sharedLimitBytes() const override {
    return driver.maxSharedMemoryPerBlock();
  }

  llvm::Expected<std::unique_ptr<Loaded>>
  load(const CompileOutcome &compiled, const Variant &variant,
       mlir::ModuleOp) override {
    auto loaded = std::make_unique<GpuLoaded>();
    loaded->contract = compiled.contract;
    loaded->variant = variant;
    llvm::Expected<cuda::Module> module = cuda::Module::load(
        compiled.cubin ? llvm::StringRef(*compiled.cubin)
                       : llvm::StringRef(compiled.ptx));
    if (!module)
      return module.takeError();
    loaded->module = std::move(*module);
    llvm::Expected<cuda::Function> function =
        loaded->module.getFunction(compiled.contract.kernel);
    if (!function)
      return function.takeError();
    loaded->function = *function;
    if (compiled.contract.sharedMemoryBytes > 48 * 1024)
      if (llvm::Error error = loaded->function.setMaxDynamicSharedMemory(
              compiled.contract.sharedMemoryBytes))
        return std::move(error);
    if (compiled.contract.persistent) {
      llvm::Expected<int64_t> ctas = loaded->function.residentCtas(
          compiled.contract.ctaThreads, compiled.contract.sharedMemoryBytes);
      if (!ctas)
        return ctas.takeError();
      loaded->residentCtas = *ctas;
    }
    return std::unique_ptr<Loaded>(std::move(loaded));
  }

  llvm::Expected<std::vector<HostTensor>>
  run(Loaded &loaded, const Instance &instance,
      std::array<int64_t, 3> grid) override {
    auto &gpu = static_cast<GpuLoaded &>(loaded);
    std::vector<cuda::DeviceBuffer> buffers(instance.tensors.size());
    for (auto [index, slot] : llvm::enumerate(gpu.contract.params)) {
      if (slot.kind != ParamSlot::Kind::Tensor)
        continue;
      const HostTensor &tensor = instance.tensors[index];
      llvm::Expected<cuda::DeviceBuffer> buffer =
          cuda::DeviceBuffer::allocate(tensor.byteSize());
      if (!buffer)
        return buffer.takeError();
      buffers[index] = std::move(*buffer);
      if (llvm::Error error =
              buffers[index].copyFromHost(tensor.data(), tensor.byteSize()))
        return std::move(error);
    }
    llvm::Expected<BoundLaunch> bound =
        bind(gpu.contract, instance, buffers, grid);
    if (!bound)
      return bound.takeError();
    if (llvm::Error error = launch(gpu, *bound))
      return std::move(error);
    if (llvm::Error error = stream.synchronize())
      return std::move(error);
    std::vector<HostTensor> result = instance.tensors;
    for (auto [index, slot] : llvm::enumerate(gpu.contract.params))
      if (slot.kind == ParamSlot::Kind::Tensor)
        if (llvm::Error error = buffers[index].copyToHost(
                result[index].data(), result[index].byteSize()))
          return std::move(error);
    return result;
  }

  std::optional<std::array<int, 2>> resources(Loaded &loaded) override {
    llvm::Expected<std::array<int, 2>> used =
        static_cast<GpuLoaded &>(loaded).function.registersAndSpills();
    if (!used) {
      llvm::consumeError(used.takeError());
      return std::nullopt;
    }
    return *used;
  }

  llvm::Error prepareTiming(const Instance &instance) override {
    timed = instance;
    timedBuffers.clear();
    timedBuffers.resize(instance.tensors.size());
    for (auto [index, tensor] : llvm::enumerate(instance.tensors)) {
      if (tensor.getShape().empty() && tensor.byteSize() == 0)
        continue;
      llvm::Expected<cuda::DeviceBuffer> buffer =
          cuda::DeviceBuffer::allocate(tensor.byteSize());
      if (!buffer)
        return buffer.takeError();
      timedBuffers[index] = std::move(*buffer);
    }
    if (!flush.size()) {
      // Twice the L2, so that a memset evicts what the last run left.
      size_t bytes = std::max<int64_t>(2 * driver.l2CacheBytes(), 64 << 20);
      llvm::Expected<cuda::DeviceBuffer> buffer =
          cuda::DeviceBuffer::allocate(bytes);
      if (!buffer)
        return buffer.takeError();
      flush = std::move(*buffer);
    }
    return llvm::Error::success();
  }

  llvm::Expected<std::vector<double>> time(Loaded &loaded,
                                           std::array<int64_t, 3> grid,
                                           unsigned warmup, unsigned repeat,
                                           bool flushL2) override {
    auto &gpu = static_cast<GpuLoaded &>(loaded);
    // Every variant starts from the same tensors (kernels may update some
    // in place).
    for (auto [index, tensor] : llvm::enumerate(timed.tensors))
      if (timedBuffers[index].size())
        if (llvm::Error error = timedBuffers[index].copyFromHost(
                tensor.data(), tensor.byteSize()))
          return std::move(error);
    llvm::Expected<BoundLaunch> bound =
        bind(gpu.contract, timed, timedBuffers, grid);
    if (!bound)
      return bound.takeError();
    for (unsigned w = 0; w < warmup; ++w)
      if (llvm::Error error = launch(gpu, *bound))
        return std::move(error);
    llvm::Expected<cuda::Event> start = cuda::Event::create();
    if (!start)
      return start.takeError();
    llvm::Expected<cuda::Event> stop = cuda::Event::create();
    if (!stop)
      return stop.takeError();
    std::vector<double> samples;
    for (unsigned r = 0; r < std::max(1u, repeat); ++r) {
      if (flushL2)
        if (llvm::Error error = flush.fillAsync(r & 0xff, stream))
          return std::move(error);
      if (llvm::Error error = start->record(stream))
        return std::move(error);
      if (llvm::Error error = launch(gpu, *bound))
        return std::move(error);
      if (llvm::Error error = stop->record(stream))
        return std::move(error);
      llvm::Expected<float> ms = cuda::Event::elapsedMs(*start, *stop);
      if (!ms)
        return ms.takeError();
      samples.push_back(*ms);
    }
    return samples;
  }

private:
  llvm::Expected<BoundLaunch> bind(const LaunchContract &contract,
                                   const Instance &instance,
                                   const std::vector<cuda::DeviceBuffer> &buffers,
                                   std::array<int64_t, 3> grid) {
    std::vector<LaunchArgument> arguments;
    for (auto [index, slot] : llvm::enumerate(contract.params)) {
      if (slot.kind == ParamSlot::Kind::Scalar) {
        auto exact = instance.integerScalars.find(slot.name);
        arguments.push_back(ScalarArgument{
            instance.scalars.lookup(slot.name),
            exact != instance.integerScalars.end()
                ? std::optional<int64_t>(exact->second)
                : std::nullopt});
        continue;
      }
      TensorArgument argument;
      argument.address = buffers[index].devicePointer();
      argument.element = slot.element;
      argument.shape.assign(instance.tensors[index].getShape().begin(),
                            instance.tensors[index].getShape().end());
      arguments.push_back(std::move(argument));
    }
    return bindArguments(contract, arguments, grid, cuda::encodeTensorMap);
  }

  llvm::Error launch(GpuLoaded &gpu, BoundLaunch &bound) {
    cuda::Function::LaunchConfig config;
    for (int axis = 0; axis < 3; ++axis)
      config.grid[axis] =
          static_cast<uint32_t>(bound.getGrid(gpu.residentCtas)[axis]);
    config.block = {static_cast<uint32_t>(gpu.contract.ctaThreads), 1, 1};
    config.sharedMemoryBytes =
        static_cast<uint32_t>(gpu.contract.sharedMemoryBytes);
    return gpu.function.launch(config, bound.params(), stream);
  }

  cuda::CudaDriver &driver;
  std::string target;
  cuda::Stream stream;
  Instance timed;
  std::vector<cuda::DeviceBuffer> timedBuffers;
  cuda::DeviceBuffer flush;
};

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

struct InterpretedVariant : Loaded {
  tile::KernelOp kernel;
};

class InterpreterBackend : public Backend {
public:
  std::string describe() const override { return "interpreter"; }
  std::string chip() const override { return "interpreter"; }
  int64_t sharedLimitBytes() const override { return -1; }

  llvm::Expected<std::unique_ptr<Loaded>>
  load(const CompileOutcome &compiled, const Variant &variant,
       mlir::ModuleOp frontEnd) override {
    auto loaded = std::make_unique<InterpretedVariant>();
    loaded->contract = compiled.contract;
    loaded->variant = variant;
    if (frontEnd)
      for (tile::KernelOp kernel : frontEnd.getOps<tile::KernelOp>())
        loaded->kernel = kernel;
    if (!loaded->kernel)
      return llvm::createStringError("no tile kernel to interpret");
    return std::unique_ptr<Loaded>(std::move(loaded));
  }

  llvm::Expected<std::vector<HostTensor>>
  run(Loaded &loaded, const Instance &instance,
      std::array<int64_t, 3> grid) override {
    std::vector<HostTensor> tensors = instance.tensors;
    if (llvm::Error error = interpret(loaded, tensors, instance, grid))
      return std::move(error);
    return tensors;
  }

  llvm::Error prepareTiming(const Instance &instance) override {
    timed = instance;
    return llvm::Error::success();
  }

  llvm::Expected<std::vector<double>> time(Loaded &loaded,
                                           std::array<int64_t, 3> grid,
                                           unsigned, unsigned repeat,
                                           bool) override {
    std::vector<double> samples;
    for (unsigned r = 0; r < std::max(1u, repeat); ++r) {
      std::vector<HostTensor> tensors = timed.tensors;
      auto begin = std::chrono::steady_clock::now();
      if (llvm::Error error = interpret(loaded, tensors, timed, grid))
        return std::move(error);
      samples.push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - begin)
                            .count());
    }
    return samples;
  }

private:
  llvm::Error interpret(Loaded &loaded, std::vector<HostTensor> &tensors,
                        const Instance &instance, std::array<int64_t, 3> grid) {
    auto &variant = static_cast<InterpretedVariant &>(loaded);
    std::vector<interp::Argument> arguments;
    for (auto [index, slot] : llvm::enumerate(variant.contract.params)) {
      if (slot.kind == ParamSlot::Kind::Scalar) {
        interp::ScalarArg scalar;
        scalar.floatValue = instance.scalars.lookup(slot.name);
        auto exact = instance.integerScalars.find(slot.name);
        scalar.intValue = exact != instance.integerScalars.end()
                              ? exact->second
                              : static_cast<int64_t>(scalar.floatValue);
        arguments.push_back(scalar);
        continue;
      }
      interp::TensorArg arg;
      arg.data = tensors[index].data();
      arg.elementType = slot.element;
      arg.shape.assign(tensors[index].getShape().begin(),
                       tensors[index].getShape().end());
      arguments.push_back(arg);
    }
    // Only the tile grid for a persistent kernel, as on the GPU.
    if (llvm::Error error =
            checkPersistentGrid(variant.contract, instance.dims, grid))
      return error;
    interp::Options options;
    options.grid = grid;
    if (std::optional<interp::RunError> error =
            interp::runKernel(variant.kernel, arguments, options)) {
      std::string where;
      llvm::raw_string_ostream os(where);
      if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(error->loc))
        os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
           << loc.getColumn() << ": ";
      return llvm::createStringError(where + error->message);
    }
    return llvm::Error::success();
  }

  Instance timed;
};

} // namespace

llvm::Expected<std::unique_ptr<Backend>>
phobos::tune::makeGpuBackend(llvm::StringRef chip) {
  llvm::Expected<cuda::CudaDriver &> driver = cuda::CudaDriver::get();
  if (!driver)
    return driver.takeError();
  std::string target = chip.str();
  if (target.empty())
    target = driver->targetChip();
  llvm::Expected<cuda::Stream> stream = cuda::Stream::create();
  if (!stream)
    return stream.takeError();
  return std::unique_ptr<Backend>(
      new GpuBackend(*driver, std::move(target), std::move(*stream)));
}

std::unique_ptr<Backend> phobos::tune::makeInterpreterBackend() {
  return std::make_unique<InterpreterBackend>();
}
