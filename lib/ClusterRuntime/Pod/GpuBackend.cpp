//===- GpuBackend.cpp - Pods that run leaves on a GPU ---------------------===//
//
// Tiles in device memory; each leaf arrives as PTX (or a cubin) with its
// launch contract and is launched through the CUDA driver (opened at run
// time, like phobos-run). Loaded modules are kept across jobs, keyed by a
// checksum of their image, so a leaf a pod has run before is not JIT-ed
// again. Host staging for loads, stores and gRPC tiles is page-locked and
// reused. Between pods of one host, tiles move GPU to GPU through CUDA IPC.
//
//===----------------------------------------------------------------------===//

#include "Phobos/ClusterRuntime/PodBackend.h"

#include "Phobos/ClusterRuntime/TensorStorage.h"
#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/LaunchContract.h"
#include "Phobos/Runtime/Launcher.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/Support/Json.h"
#include "phobos_cluster.pb.h"

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>

using namespace phobos;
using namespace phobos::cluster::runtime;
namespace wire = phobos::cluster::wire;

namespace {

absl::Status fromLlvm(llvm::Error error, absl::string_view what) {
  if (!error)
    return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(what, ": ", llvm::toString(std::move(error))));
}

class DeviceTile : public TileBuffer {
public:
  explicit DeviceTile(cuda::DeviceBuffer buffer) : buffer(std::move(buffer)) {
    size = static_cast<int64_t>(this->buffer.size());
  }
  uint64_t device() const override { return buffer.devicePointer(); }
  cuda::DeviceBuffer buffer;
};

class GpuBackend;

/// Page-locked staging, returned to the backend's pool when done.
class PinnedStaging : public Staging {
public:
  PinnedStaging(GpuBackend &owner, cuda::PinnedBuffer buffer)
      : owner(owner), buffer(std::move(buffer)) {}
  ~PinnedStaging() override;
  void *data() override { return buffer.data(); }

private:
  GpuBackend &owner;
  cuda::PinnedBuffer buffer;
};

class GpuBackend : public Backend {
public:
  GpuBackend(cuda::CudaDriver &driver, cuda::Stream stream)
      : driver(driver), stream(std::move(stream)) {
    // The chip the scheduler compiles this pod's leaves for: sm_90a on an
    // sm_90 card, as every other launcher targets it.
    chipName = chipForCapability(driver.computeCapability());
  }

  std::string kind() const override { return "gpu"; }
  std::string describe() const override {
    return absl::StrCat(driver.describeDevice(), ", device ", driver.ordinal());
  }
  std::string chip() const override { return chipName; }
  int deviceOrdinal() const override { return driver.ordinal(); }
  int64_t memoryBytes() const override { return driver.totalMemoryBytes(); }

  absl::Status prepare(const wire::StartJob &job) override {
    leaves.clear();
    for (const wire::LeafSpec &spec : job.leaves()) {
      if (spec.ptx().empty() && spec.cubin().empty())
        return absl::InvalidArgumentError(absl::StrCat(
            "leaf '", spec.name(), "' came without PTX; the scheduler "
            "compiles leaves for GPU pods"));
      llvm::Expected<llvm::json::Value> json = phobos::parseJson(spec.contract());
      if (!json)
        return fromLlvm(json.takeError(),
                        absl::StrCat("the launch contract of leaf '", spec.name(), "'"));
      llvm::Expected<LaunchContract> contract = LaunchContract::fromJSON(*json);
      if (!contract)
        return fromLlvm(contract.takeError(),
                        absl::StrCat("the launch contract of leaf '", spec.name(), "'"));
      // A cubin for another chip would not load; PTX is JIT-ed for this one.
      bool useCubin = !spec.cubin().empty() && spec.chip() == chipName;
      const std::string &image = useCubin ? spec.cubin() : spec.ptx();
      uint64_t key = storage::checksum(image.data(), image.size());
      auto cached = modules.find(key);
      if (cached == modules.end()) {
        llvm::Expected<cuda::Module> module = cuda::Module::load(image);
        if (!module)
          return fromLlvm(module.takeError(),
                          absl::StrCat("loading leaf '", spec.name(), "'"));
        cached = modules.emplace(key, std::move(*module)).first;
      }
      llvm::Expected<cuda::Function> function =
          cached->second.getFunction(contract->kernel);
      if (!function)
        return fromLlvm(function.takeError(),
                        absl::StrCat("leaf '", spec.name(), "'"));
      if (contract->sharedMemoryBytes > 48 * 1024)
        if (absl::Status status = fromLlvm(
                function->setMaxDynamicSharedMemory(contract->sharedMemoryBytes),
                absl::StrCat("leaf '", spec.name(), "'"));
            !status.ok())
          return status;
      Leaf leaf;
      leaf.name = spec.name();
      leaf.contract = std::move(*contract);
      leaf.function = *function;
      // A persistent kernel: as many CTAs as the GPU holds at once.
      if (leaf.contract.persistent) {
        llvm::Expected<int64_t> ctas = leaf.function.residentCtas(
            leaf.contract.ctaThreads, leaf.contract.sharedMemoryBytes);
        if (!ctas)
          return fromLlvm(ctas.takeError(),
                          absl::StrCat("leaf '", spec.name(), "'"));
        leaf.residentCtas = *ctas;
      }
      for (int axis = 0; axis < 3 && axis < spec.grid_size(); ++axis)
        leaf.grid[axis] = std::max<int64_t>(1, spec.grid(axis));
      leaves.push_back(std::move(leaf));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<TileBuffer>> allocate(int64_t bytes,
                                                       bool zero) override {
    llvm::Expected<cuda::DeviceBuffer> buffer =
        cuda::DeviceBuffer::allocate(static_cast<size_t>(bytes));
    if (!buffer)
      return absl::ResourceExhaustedError(absl::StrCat(
          "allocating ", bytes, " bytes on the GPU: ",
          llvm::toString(buffer.takeError())));
    if (zero) {
      absl::StatusOr<cuda::Stream *> copies = threadStream();
      if (!copies.ok())
        return copies.status();
      if (absl::Status status =
              fromLlvm(buffer->fill(0, **copies), "zeroing a tile");
          !status.ok())
        return status;
    }
    return std::unique_ptr<TileBuffer>(new DeviceTile(std::move(*buffer)));
  }

  absl::StatusOr<std::unique_ptr<Staging>> staging(int64_t bytes) override {
    {
      absl::MutexLock lock(&poolMutex);
      auto found = pool.find(bytes);
      if (found != pool.end()) {
        cuda::PinnedBuffer buffer = std::move(found->second);
        pool.erase(found);
        return std::unique_ptr<Staging>(new PinnedStaging(*this, std::move(buffer)));
      }
    }
    // Page-locked only: a copy from pageable memory may return before its
    // DMA is done, and leaves run on a stream that does not wait for it.
    llvm::Expected<cuda::PinnedBuffer> buffer =
        cuda::PinnedBuffer::allocate(static_cast<size_t>(bytes));
    if (!buffer)
      return absl::ResourceExhaustedError(absl::StrCat(
          "page-locking ", bytes, " bytes of host memory for a tile: ",
          llvm::toString(buffer.takeError())));
    return std::unique_ptr<Staging>(new PinnedStaging(*this, std::move(*buffer)));
  }

  void giveBack(cuda::PinnedBuffer buffer) {
    absl::MutexLock lock(&poolMutex);
    // A few buffers per size: enough for the I/O threads of one pod.
    if (pool.count(static_cast<int64_t>(buffer.size())) < kPooledPerSize)
      pool.emplace(static_cast<int64_t>(buffer.size()), std::move(buffer));
  }

  absl::Status upload(TileBuffer &buffer, const void *data,
                      int64_t bytes) override {
    return fromLlvm(static_cast<DeviceTile &>(buffer).buffer.copyFromHost(
                        data, static_cast<size_t>(bytes)),
                    "copying a tile to the GPU");
  }

  absl::Status download(const TileBuffer &buffer, void *data,
                        int64_t bytes) override {
    return fromLlvm(static_cast<const DeviceTile &>(buffer).buffer.copyToHost(
                        data, static_cast<size_t>(bytes)),
                    "copying a tile from the GPU");
  }

  size_t numLeaves() const override { return leaves.size(); }

  absl::Status computeLeaf(unsigned leafIndex,
                           const std::vector<TileBuffer *> &tensors,
                           const std::vector<std::vector<int64_t>> &shapes,
                           const std::vector<LeafScalar> &scalars) override {
    Leaf &leaf = leaves[leafIndex];
    std::vector<LaunchArgument> arguments;
    size_t nextTensor = 0, nextScalar = 0;
    for (const ParamSlot &slot : leaf.contract.params) {
      if (slot.kind == ParamSlot::Kind::Tensor) {
        if (nextTensor >= tensors.size())
          return absl::InvalidArgumentError(
              absl::StrCat("leaf '", leaf.name, "' needs more tensors"));
        TensorArgument argument;
        argument.address = tensors[nextTensor]->device();
        argument.element = slot.element;
        argument.shape = shapes[nextTensor];
        ++nextTensor;
        arguments.push_back(std::move(argument));
      } else {
        if (nextScalar >= scalars.size())
          return absl::InvalidArgumentError(
              absl::StrCat("leaf '", leaf.name, "' needs more scalars"));
        arguments.push_back(phobos::ScalarArgument{scalars[nextScalar++].value});
      }
    }
    llvm::Expected<BoundLaunch> bound =
        bindArguments(leaf.contract, arguments, leaf.grid,
                      cuda::encodeTensorMap);
    if (!bound)
      return fromLlvm(bound.takeError(), absl::StrCat("leaf '", leaf.name, "'"));
    cuda::Function::LaunchConfig config;
    for (int axis = 0; axis < 3; ++axis)
      config.grid[axis] =
          static_cast<uint32_t>(bound->getGrid(leaf.residentCtas)[axis]);
    config.block = {static_cast<uint32_t>(leaf.contract.ctaThreads), 1, 1};
    config.sharedMemoryBytes =
        static_cast<uint32_t>(leaf.contract.sharedMemoryBytes);
    std::vector<void *> params = bound->params();
    if (absl::Status status =
            fromLlvm(leaf.function.launch(config, params, stream),
                     absl::StrCat("launching leaf '", leaf.name, "'"));
        !status.ok())
      return status;
    return fromLlvm(stream.synchronize(),
                    absl::StrCat("running leaf '", leaf.name, "'"));
  }

  bool canShareDevice() const override { return true; }

  absl::StatusOr<std::string> exportBuffer(TileBuffer &buffer) override {
    llvm::Expected<std::string> handle =
        static_cast<DeviceTile &>(buffer).buffer.ipcHandle();
    if (!handle)
      return absl::InternalError(llvm::toString(handle.takeError()));
    return *handle;
  }

  absl::Status copyFromExported(const std::string &handle, int64_t bytes,
                                TileBuffer &target) override {
    absl::StatusOr<cuda::Stream *> copies = threadStream();
    if (!copies.ok())
      return copies.status();
    llvm::Expected<cuda::IpcMapping> mapping = cuda::IpcMapping::open(handle);
    if (!mapping)
      return fromLlvm(mapping.takeError(), "opening a peer's tile");
    // Waits for the copy: the holder frees the tile once told it is done.
    return fromLlvm(static_cast<DeviceTile &>(target).buffer.copyFromDevice(
                        mapping->devicePointer(), static_cast<size_t>(bytes),
                        **copies),
                    "copying a peer's tile GPU to GPU");
  }

private:
  static constexpr size_t kPooledPerSize = 4;

  /// A stream of the calling thread's own, for the copies and fills that
  /// must be complete before the call returns.
  static absl::StatusOr<cuda::Stream *> threadStream() {
    thread_local std::optional<cuda::Stream> stream;
    if (!stream) {
      llvm::Expected<cuda::Stream> made = cuda::Stream::create();
      if (!made)
        return absl::UnavailableError(llvm::toString(made.takeError()));
      stream = std::move(*made);
    }
    return &*stream;
  }

  struct Leaf {
    std::string name;
    LaunchContract contract;
    cuda::Function function;
    std::array<int64_t, 3> grid = {1, 1, 1};
    /// A persistent leaf's launch (0: one CTA per tile).
    int64_t residentCtas = 0;
  };

  cuda::CudaDriver &driver;
  cuda::Stream stream;
  std::string chipName;
  std::vector<Leaf> leaves;
  /// Loaded modules by a checksum of their image; kept across jobs.
  std::map<uint64_t, cuda::Module> modules;
  absl::Mutex poolMutex;
  std::multimap<int64_t, cuda::PinnedBuffer> pool;
};

PinnedStaging::~PinnedStaging() { owner.giveBack(std::move(buffer)); }

} // namespace

absl::StatusOr<std::unique_ptr<Backend>>
phobos::cluster::runtime::createGpuBackend(int device) {
  llvm::Expected<cuda::CudaDriver &> driver = cuda::CudaDriver::get(device);
  if (!driver)
    return absl::UnavailableError(llvm::toString(driver.takeError()));
  llvm::Expected<cuda::Stream> stream = cuda::Stream::create();
  if (!stream)
    return absl::UnavailableError(llvm::toString(stream.takeError()));
  return std::unique_ptr<Backend>(new GpuBackend(*driver, std::move(*stream)));
}
