//===- RunGpu.cpp - phobos-run on the GPU --------------------------------===//
//
// A run on the GPU: the kernel compiled through the front door (from the
// kernel cache when the source is Phobos text), specialised for the
// extents' divisibility unless --no-specialize, the tensors copied to the
// device, the launch bound by the launcher's checks, run, timed with events
// (--bench) and copied back; a fault reported at the kernel's line.
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include "Phobos/Driver/Session.h"
#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/Launcher.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace phobos::run {
namespace {

/// Prints a runtime error and returns false.
bool reportError(llvm::Error error) {
  llvm::errs() << "phobos-run: " << llvm::toString(std::move(error)) << "\n";
  return false;
}

/// Reports what a launch of `kernel` left when the GPU ran it (an illegal
/// address, say) at the kernel's source line, and returns false: nothing
/// else ran on the stream since the launch, so it is this kernel's. The
/// line of the access itself is compute-sanitizer's to tell (the CUDA
/// driver's message says how).
bool reportKernelFault(tile::KernelOp kernel, llvm::Error error) {
  mlir::emitError(kernel.getLoc())
      << "kernel '" << kernel.getSymName()
      << "' failed on the GPU: " << llvm::toString(std::move(error));
  return false;
}

/// The compiled kernel for `target`: from the kernel cache when the source
/// is Phobos text (`source` non-empty) and the cache is on, else compiled
/// (and published in the cache).
std::optional<CompiledKernel> compileForGpu(mlir::ModuleOp sourceModule,
                                            llvm::StringRef source,
                                            const std::string &target,
                                            const llvm::StringMap<int64_t> &dims,
                                            std::optional<std::string> &cubin) {
  tile::KernelOp kernelOp = *sourceModule.getOps<tile::KernelOp>().begin();
  // Specialised for the extents of this launch (a copy: the interpreter
  // and the checks use the source kernel).
  mlir::OwningOpRef<mlir::ModuleOp> specializedModule;
  std::vector<std::pair<std::string, int64_t>> specialized;
  if (specialize && !measure.noSpecialize) {
    specializedModule = mlir::OwningOpRef<mlir::ModuleOp>(
        llvm::cast<mlir::ModuleOp>(sourceModule->clone()));
    kernelOp = *specializedModule->getOps<tile::KernelOp>().begin();
    specialized = specializeAlignment(kernelOp, dims);
    if (!specialized.empty())
      sourceModule = *specializedModule;
    else
      kernelOp = *sourceModule.getOps<tile::KernelOp>().begin();
  }
  std::string root = kernelOptions.cacheDirectory();
  CompileOptions options;
  options.chip = target;
  options.cacheDir = noCache ? "" : root;
  options.lineInfo = lineInfo;
  BuildKey key;
  key.source = source.str();
  key.specialized = std::move(specialized);
  mlir::FailureOr<KernelBuild> build = getOrCompile(kernelOp, key, options);
  if (failed(build))
    return std::nullopt;
  for (const std::string &note : build->notes)
    llvm::errs() << "phobos-run: note: " << note << "\n";
  // The PTX still runs without a cubin: the CUDA driver JIT-compiles it.
  if (!build->assemblyError.empty())
    llvm::errs() << "phobos-run: note: " << build->assemblyError << "\n";
  if (!build->storeError.empty())
    llvm::errs() << "phobos-run: note: not cached: " << build->storeError << "\n";
  cubin = std::move(build->cubin);
  return std::move(build->kernel);
}

} // namespace

/// Compiles for the GPU, copies the tensors there, launches (and times),
/// and copies them back.
bool runOnGpu(mlir::ModuleOp sourceModule, llvm::StringRef source,
              const llvm::StringMap<int64_t> &dims,
              std::vector<HostTensor> &tensors,
              const llvm::StringMap<double> &scalars,
              const llvm::StringMap<int64_t> &integerScalars,
              std::array<int64_t, 3> grid, bool timing, unsigned runs,
              std::vector<double> &times, std::string &backend) {
  tile::KernelOp kernelOp = *sourceModule.getOps<tile::KernelOp>().begin();
  llvm::Expected<cuda::CudaDriver &> driver = cuda::CudaDriver::get();
  if (!driver)
    return reportError(driver.takeError());
  // The chip: --chip, or the device's own compute capability.
  std::string target = kernelOptions.chipOr(driver->targetChip());
  std::optional<std::string> cubin;
  std::optional<CompiledKernel> compiled =
      compileForGpu(sourceModule, source, target, dims, cubin);
  if (!compiled)
    return false;
  const CompiledKernel &kernel = *compiled;
  const LaunchContract &contract = kernel.contract;
  backend = "gpu " + driver->describeDevice();
  llvm::Expected<cuda::Module> module =
      cuda::Module::load(cubin ? llvm::StringRef(*cubin) : llvm::StringRef(kernel.ptx));
  if (!module)
    return reportError(module.takeError());
  llvm::Expected<cuda::Function> function =
      module->getFunction(contract.kernel);
  if (!function)
    return reportError(function.takeError());
  if (contract.sharedMemoryBytes > 48 * 1024)
    if (llvm::Error error =
            function->setMaxDynamicSharedMemory(contract.sharedMemoryBytes))
      return reportError(std::move(error));

  // The device must hold every tensor at once: check before allocating.
  int64_t deviceBytes = 0;
  for (const HostTensor &tensor : tensors)
    deviceBytes += static_cast<int64_t>(tensor.byteSize());
  if (deviceBytes > driver->totalMemoryBytes()) {
    llvm::errs() << "phobos-run: the tensors need " << formatBytes(deviceBytes)
                 << " of GPU memory, more than the device's "
                 << formatBytes(driver->totalMemoryBytes())
                 << "; choose smaller --dim values\n";
    return false;
  }
  std::vector<cuda::DeviceBuffer> buffers(tensors.size());
  std::vector<LaunchArgument> arguments;
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      // An integer --scalar exactly: an i64 beyond 2^53 is no double.
      auto exact = integerScalars.find(slot.name);
      arguments.push_back(ScalarArgument{
          scalars.lookup(slot.name),
          exact != integerScalars.end() ? std::optional<int64_t>(exact->second)
                                        : std::nullopt});
      continue;
    }
    HostTensor &tensor = tensors[index];
    llvm::Expected<cuda::DeviceBuffer> buffer =
        cuda::DeviceBuffer::allocate(tensor.byteSize());
    if (!buffer)
      return reportError(buffer.takeError());
    buffers[index] = std::move(*buffer);
    if (llvm::Error error =
            buffers[index].copyFromHost(tensor.data(), tensor.byteSize()))
      return reportError(std::move(error));
    TensorArgument argument;
    argument.address = buffers[index].devicePointer();
    argument.element = slot.element;
    argument.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    arguments.push_back(std::move(argument));
  }
  llvm::Expected<BoundLaunch> bound =
      bindArguments(contract, arguments, grid, cuda::encodeTensorMap);
  if (!bound)
    return reportError(bound.takeError());
  cuda::Function::LaunchConfig config;
  // A persistent kernel: as many CTAs as the GPU holds at once.
  int64_t resident = 0;
  if (contract.persistent) {
    llvm::Expected<int64_t> ctas =
        function->residentCtas(contract.ctaThreads, contract.sharedMemoryBytes);
    if (!ctas)
      return reportError(ctas.takeError());
    resident = *ctas;
  }
  for (int axis = 0; axis < 3; ++axis)
    config.grid[axis] = static_cast<uint32_t>(bound->getGrid(resident)[axis]);
  config.block = {static_cast<uint32_t>(contract.ctaThreads), 1, 1};
  config.sharedMemoryBytes = static_cast<uint32_t>(contract.sharedMemoryBytes);
  llvm::Expected<cuda::Stream> stream = cuda::Stream::create();
  if (!stream)
    return reportError(stream.takeError());
  std::vector<void *> params = bound->params();
  if (llvm::Error error = function->launch(config, params, *stream))
    return reportError(std::move(error));
  if (llvm::Error error = stream->synchronize())
    return reportKernelFault(kernelOp, std::move(error));
  for (auto [index, slot] : llvm::enumerate(contract.params))
    if (slot.kind == ParamSlot::Kind::Tensor)
      if (llvm::Error error = buffers[index].copyToHost(
              tensors[index].data(), tensors[index].byteSize()))
        return reportError(std::move(error));
  if (!timing)
    return true;
  // Median of event-timed launches after warm-up.
  llvm::Expected<cuda::Event> start = cuda::Event::create();
  llvm::Expected<cuda::Event> stop = cuda::Event::create();
  if (!start || !stop)
    return reportError(!start ? start.takeError() : stop.takeError());
  for (unsigned w = 0; w < measure.warmup; ++w)
    if (llvm::Error error = function->launch(config, params, *stream))
      return reportError(std::move(error));
  for (unsigned r = 0; r < std::max(1u, runs); ++r) {
    if (llvm::Error error = start->record(*stream))
      return reportError(std::move(error));
    if (llvm::Error error = function->launch(config, params, *stream))
      return reportError(std::move(error));
    if (llvm::Error error = stop->record(*stream))
      return reportError(std::move(error));
    llvm::Expected<float> ms = cuda::Event::elapsedMs(*start, *stop);
    if (!ms)
      return reportError(ms.takeError());
    times.push_back(*ms);
  }
  return true;
}

} // namespace phobos::run
