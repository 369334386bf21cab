//===- CudaDriver.cpp - The CUDA driver API, opened at run time -----------===//
//
// libcuda.so.1 is opened with dlopen and only cuGetProcAddress is taken
// with dlsym; every other entry point is resolved through it for
// CUDA_VERSION, so the pointer has exactly the ABI of the prototype cuda.h
// declares (cuda.h maps e.g. cuMemAlloc to cuMemAlloc_v2). cuda.h is used
// for its types and constants only: nothing here links against libcuda.
//
// Why this file is long: it is all of Phobos's use of libcuda, one small
// RAII wrapper per driver object (the driver and its device, device buffers,
// IPC mappings, pinned buffers, streams, events, functions with their
// launches and tensor maps, modules), each over the one table of entry
// points and the one error rule at the top; split up, every file would need
// that table and rule.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Support/Chips.h"

#include "llvm/Support/FormatVariadic.h"

#include <cuda.h>
#include <dlfcn.h>

#include <climits>
#include <cstring>
#include <iterator>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

using namespace phobos;
using namespace phobos::cuda;

// The entry points Phobos uses. Every one keeps the signature it had before
// CUDA 13 (which is why the stream and event calls synchronise, not
// cuCtxSynchronize, whose CUDA 13 version takes a context).
#define PHOBOS_CUDA_ENTRY_POINTS(X)                                            \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleUnload)                                                            \
  X(cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuLaunchKernel)                                                            \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD8)                                                                \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemHostAlloc)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuIpcGetMemHandle)                                                         \
  X(cuIpcOpenMemHandle)                                                        \
  X(cuIpcCloseMemHandle)

namespace {
/// cuGetProcAddress since CUDA 12 (exported as cuGetProcAddress_v2) and the
/// CUDA 11.3 one without the symbol status.
using GetProcAddressV2 = CUresult(CUDAAPI *)(const char *, void **, int,
                                             cuuint64_t,
                                             CUdriverProcAddressQueryResult *);
using GetProcAddressV1 = CUresult(CUDAAPI *)(const char *, void **, int,
                                             cuuint64_t);

/// One pointer per entry point. The members are spelled as the functions
/// and cuda.h's version macros rename both alike (`cuMemAlloc` is
/// `cuMemAlloc_v2` everywhere), so `api.cuMemAlloc` has the type of the
/// function cuda.h declares for CUDA_VERSION.
struct Api {
#define PHOBOS_CUDA_MEMBER(function) decltype(&::function) function = nullptr;
  PHOBOS_CUDA_ENTRY_POINTS(PHOBOS_CUDA_MEMBER)
#undef PHOBOS_CUDA_MEMBER
};

/// The errors a kernel's own fault leaves behind (they stick to the
/// context: every later call returns them).
bool isKernelFault(CUresult result) {
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_LAUNCH_FAILED:
    return true;
  default:
    return false;
  }
}

/// What such an error adds: the driver says neither which kernel nor which
/// line faulted, and compute-sanitizer says both, from the line info Phobos
/// compiles in (docs/debugging.md).
constexpr llvm::StringLiteral kKernelFaultHint =
    "a kernel faulted; the driver does not say where: run the program under "
    "`compute-sanitizer --tool memcheck`, which names the kernel's source "
    "line";
} // namespace

struct CudaDriver::Impl {
  void *library = nullptr;
  Api api;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string deviceName;
  std::array<int, 2> capability = {0, 0};
  size_t totalMemoryBytes = 0;
  int maxSharedOptinBytes = 0;
  int l2CacheBytes = 0;
  int multiprocessors = 0;

  /// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory): detail",
  /// and for a kernel's fault, how to find its line (kKernelFaultHint).
  llvm::Error check(CUresult result, llvm::StringRef call,
                    llvm::StringRef detail = "") const {
    if (result == CUDA_SUCCESS)
      return llvm::Error::success();
    const char *errorName = nullptr, *description = nullptr;
    if (api.cuGetErrorName)
      api.cuGetErrorName(result, &errorName);
    if (api.cuGetErrorString)
      api.cuGetErrorString(result, &description);
    std::string message = (call + " failed: ").str();
    message += errorName ? std::string(errorName)
                         : "CUresult " + std::to_string(result);
    if (description)
      message += std::string(" (") + description + ")";
    if (!detail.empty())
      message += (": " + detail).str();
    if (isKernelFault(result))
      message += ("; " + kKernelFaultHint).str();
    return llvm::createStringError(message);
  }

  /// The driver resources belong to: the one already made (for whatever
  /// device), else device 0's.
  static llvm::Expected<Impl &> current();
  static llvm::Expected<CudaDriver &> acquire(std::optional<int> device);
  /// Opens the library, resolves the entry points and initialises the
  /// driver.
  static llvm::Expected<std::unique_ptr<Impl>> load();
  /// Reads device `ordinal`'s properties and retains its primary context.
  llvm::Error openDevice(int ordinal);
};

namespace {
/// The process's driver. Never destroyed: buffers and modules in static
/// storage may outlive any destruction order, and unloading libcuda at exit
/// is what drivers handle worst.
struct DriverState {
  std::mutex mutex;
  CudaDriver *driver = nullptr;
  /// The initialised driver until a device opens.
  std::unique_ptr<CudaDriver::Impl> loaded;
  /// Why loading failed: a missing or broken driver does not change while
  /// the process runs, so it is not retried. A device that fails to open
  /// is not remembered: another ordinal may work.
  std::optional<std::string> failure;
};

DriverState &driverState() {
  static DriverState *state = new DriverState;
  return *state;
}

/// Whether this thread made the primary context current: the current
/// context is per thread, and a runtime used from a worker thread must
/// not find none.
thread_local bool contextIsCurrent = false;
} // namespace

llvm::Expected<std::unique_ptr<CudaDriver::Impl>> CudaDriver::Impl::load() {
  auto impl = std::make_unique<Impl>();
  impl->library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!impl->library) {
    const char *reason = dlerror();
    return llvm::createStringError(
        "cannot open libcuda.so.1 (no NVIDIA driver on this machine): %s",
        reason ? reason : "unknown error");
  }
  // The library stays loaded for the life of the process (see DriverState).
  auto getProcAddressV2 = reinterpret_cast<GetProcAddressV2>(
      dlsym(impl->library, "cuGetProcAddress_v2"));
  auto getProcAddressV1 = reinterpret_cast<GetProcAddressV1>(
      dlsym(impl->library, "cuGetProcAddress"));
  if (!getProcAddressV2 && !getProcAddressV1)
    return llvm::createStringError(
        "libcuda.so.1 has no cuGetProcAddress: the NVIDIA driver is older "
        "than CUDA 11.3; Phobos needs one that supports CUDA %d.%d",
        CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);

  auto resolve = [&](const char *symbol, auto &function) -> llvm::Error {
    void *pointer = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult result =
        getProcAddressV2
            ? getProcAddressV2(symbol, &pointer, CUDA_VERSION,
                               CU_GET_PROC_ADDRESS_DEFAULT, &status)
            : getProcAddressV1(symbol, &pointer, CUDA_VERSION,
                               CU_GET_PROC_ADDRESS_DEFAULT);
    if (result == CUDA_ERROR_INVALID_VALUE)
      // What cuGetProcAddress answers when CUDA_VERSION is newer than the
      // driver: say so rather than blame the symbol.
      return impl->check(
          result, "cuGetProcAddress",
          llvm::formatv("{0}: the NVIDIA driver is older than the CUDA {1}.{2} "
                        "Phobos is built against; update the driver",
                        symbol, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10)
              .str());
    if (llvm::Error error = impl->check(result, "cuGetProcAddress", symbol))
      return error;
    if (!pointer || status != CU_GET_PROC_ADDRESS_SUCCESS)
      return llvm::createStringError(
          "the NVIDIA driver has no %s for CUDA %d.%d", symbol,
          CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    function =
        reinterpret_cast<std::remove_reference_t<decltype(function)>>(pointer);
    return llvm::Error::success();
  };
  // The error names first, so that every later failure can be described.
#define PHOBOS_CUDA_RESOLVE(function)                                          \
  if (llvm::Error error = resolve(#function, impl->api.function))              \
    return std::move(error);
  PHOBOS_CUDA_ENTRY_POINTS(PHOBOS_CUDA_RESOLVE)
#undef PHOBOS_CUDA_RESOLVE

  if (llvm::Error error = impl->check(impl->api.cuInit(0), "cuInit"))
    return std::move(error);
  return std::move(impl);
}

llvm::Error CudaDriver::Impl::openDevice(int ordinal) {
  this->ordinal = ordinal;
  if (llvm::Error error =
          check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet",
                "device " + std::to_string(ordinal)))
    return error;

  char nameBuffer[256] = {0};
  if (llvm::Error error =
          check(api.cuDeviceGetName(nameBuffer, sizeof nameBuffer - 1, device),
                "cuDeviceGetName"))
    return error;
  deviceName = nameBuffer;
  auto attribute = [&](CUdevice_attribute which, int &value) {
    return check(api.cuDeviceGetAttribute(&value, which, device),
                 "cuDeviceGetAttribute");
  };
  if (llvm::Error error = attribute(
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, capability[0]))
    return error;
  if (llvm::Error error = attribute(
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, capability[1]))
    return error;
  if (llvm::Error error =
          attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                    maxSharedOptinBytes))
    return error;
  if (llvm::Error error =
          attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, l2CacheBytes))
    return error;
  if (llvm::Error error =
          attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, multiprocessors))
    return error;
  if (llvm::Error error = check(api.cuDeviceTotalMem(&totalMemoryBytes, device),
                                "cuDeviceTotalMem"))
    return error;

  // The primary context is the one the CUDA runtime and other libraries in
  // the process share; it is retained for the life of the process.
  if (llvm::Error error = check(api.cuDevicePrimaryCtxRetain(&context, device),
                                "cuDevicePrimaryCtxRetain"))
    return error;
  return llvm::Error::success();
}

llvm::Expected<CudaDriver &>
CudaDriver::Impl::acquire(std::optional<int> device) {
  DriverState &state = driverState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.failure)
    return llvm::createStringError(*state.failure);
  if (!state.driver) {
    if (!state.loaded) {
      llvm::Expected<std::unique_ptr<Impl>> impl = load();
      if (!impl) {
        state.failure = llvm::toString(impl.takeError());
        return llvm::createStringError(*state.failure);
      }
      state.loaded = std::move(*impl);
    }
    if (llvm::Error error = state.loaded->openDevice(device.value_or(0)))
      return std::move(error);
    state.driver = new CudaDriver(std::move(state.loaded));
  }
  Impl &impl = *state.driver->impl;
  if (device && *device != impl.ordinal)
    return llvm::createStringError(
        "the CUDA driver is already in use on device %d; one process uses "
        "one device (asked for device %d)",
        impl.ordinal, *device);
  if (!contextIsCurrent) {
    if (llvm::Error error = impl.check(impl.api.cuCtxSetCurrent(impl.context),
                                       "cuCtxSetCurrent"))
      return std::move(error);
    contextIsCurrent = true;
  }
  return *state.driver;
}

llvm::Expected<CudaDriver::Impl &> CudaDriver::Impl::current() {
  llvm::Expected<CudaDriver &> driver = acquire(std::nullopt);
  if (!driver)
    return driver.takeError();
  return *driver->impl;
}

//===----------------------------------------------------------------------===//
// Owned handles: what DeviceBuffer, IpcMapping and PinnedBuffer share (Stream,
// Event and Module are OwnedHandles)
//===----------------------------------------------------------------------===//

/// The move assignment of an owned handle: what `self` held is released
/// (its destructor), then `other`'s handle moves in (its move constructor).
template <typename Owner>
static Owner &moveInto(Owner &self, Owner &&other) noexcept {
  if (&self != &other) {
    self.~Owner();
    new (&self) Owner(std::move(other));
  }
  return self;
}

/// Releases a handle from a destructor with the current driver. Nothing can
/// be reported there: a failing release means the context is already
/// broken, and the next checked call says so.
template <typename Release> static void releaseWithDriver(Release release) {
  if (llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current())
    (void)release(*driver);
  else
    llvm::consumeError(driver.takeError());
}

/// Calls one entry point of the current driver and checks its result:
/// `call(api)` returns the CUresult; `name` and `detail` say what failed.
template <typename Call>
static llvm::Error callDriver(Call call, llvm::StringRef name,
                              llvm::StringRef detail = "") {
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  return driver->check(call(driver->api), name, detail);
}

/// callDriver, then a wait for `stream`: for the copies and fills whose
/// caller expects them done on return. `syncDetail` says what the failed
/// wait followed.
template <typename Call>
static llvm::Error callAndSynchronize(Call call, llvm::StringRef name,
                                      CUstream stream,
                                      llvm::StringRef syncDetail = "") {
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  if (llvm::Error error = driver->check(call(driver->api), name))
    return error;
  return driver->check(driver->api.cuStreamSynchronize(stream),
                       "cuStreamSynchronize", syncDetail);
}

/// Creates a driver object through `create(api, &handle)` and hands the
/// handle to a new `Owner` (an OwnedHandle).
template <typename Owner, typename Handle, typename Create>
static llvm::Expected<Owner> createOwned(Create create, llvm::StringRef name) {
  Handle handle = nullptr;
  if (llvm::Error error = callDriver(
          [&](const auto &api) { return create(api, &handle); }, name))
    return std::move(error);
  return Owner::adopt(handle);
}

//===----------------------------------------------------------------------===//
// CudaDriver
//===----------------------------------------------------------------------===//

CudaDriver::CudaDriver(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
CudaDriver::~CudaDriver() = default;

llvm::Expected<CudaDriver &> CudaDriver::get(int device) {
  return Impl::acquire(device);
}

std::string CudaDriver::describeDevice() const {
  return llvm::formatv("{0} (sm_{1}{2}, {3} GiB)", impl->deviceName,
                       impl->capability[0], impl->capability[1],
                       impl->totalMemoryBytes >> 30)
      .str();
}

std::array<int, 2> CudaDriver::computeCapability() const {
  return impl->capability;
}

std::string CudaDriver::targetChip() const {
  return chipForCapability(impl->capability);
}

int64_t CudaDriver::totalMemoryBytes() const {
  return static_cast<int64_t>(impl->totalMemoryBytes);
}

int64_t CudaDriver::maxSharedMemoryPerBlock() const {
  return impl->maxSharedOptinBytes;
}

int CudaDriver::ordinal() const { return impl->ordinal; }
int64_t CudaDriver::l2CacheBytes() const { return impl->l2CacheBytes; }

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

/// The copies' bounds: `count` bytes copied `direction` ("into", "out of") a
/// device buffer of `bytes`.
static llvm::Error checkCopyFits(size_t count, size_t bytes,
                                 const char *direction) {
  if (count > bytes)
    return llvm::createStringError(
        "cannot copy %zu bytes %s a device buffer of %zu bytes", count,
        direction, bytes);
  return llvm::Error::success();
}

llvm::Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
  DeviceBuffer buffer;
  // cuMemAlloc rejects 0 bytes; an empty buffer needs no memory.
  if (bytes == 0)
    return std::move(buffer);
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  CUdeviceptr pointer = 0;
  if (llvm::Error error =
          driver->check(driver->api.cuMemAlloc(&pointer, bytes), "cuMemAlloc",
                        std::to_string(bytes) + " bytes"))
    return std::move(error);
  buffer.pointer = pointer;
  buffer.bytes = bytes;
  return std::move(buffer);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : pointer(std::exchange(other.pointer, 0)),
      bytes(std::exchange(other.bytes, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  return moveInto(*this, std::move(other));
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer)
    releaseWithDriver([&](CudaDriver::Impl &driver) {
      return driver.api.cuMemFree(pointer);
    });
}

llvm::Error DeviceBuffer::copyFromHost(const void *data, size_t count) {
  if (llvm::Error error = checkCopyFits(count, bytes, "into"))
    return error;
  if (count == 0)
    return llvm::Error::success();
  // From pageable memory, cuMemcpyHtoD returns once the data is staged; the
  // DMA into the buffer is still queued on the legacy stream, which kernels
  // on non-blocking streams do not wait for (a launch right after could
  // read the old contents, and the late copy overwrite what it wrote).
  return callAndSynchronize(
      [&](const auto &api) { return api.cuMemcpyHtoD(pointer, data, count); },
      "cuMemcpyHtoD", CU_STREAM_LEGACY, "after cuMemcpyHtoD");
}

llvm::Error DeviceBuffer::copyToHost(void *data, size_t count) const {
  if (llvm::Error error = checkCopyFits(count, bytes, "out of"))
    return error;
  if (count == 0)
    return llvm::Error::success();
  return callDriver(
      [&](const auto &api) { return api.cuMemcpyDtoH(data, pointer, count); },
      "cuMemcpyDtoH");
}

llvm::Error DeviceBuffer::fill(uint8_t byte) {
  if (bytes == 0)
    return llvm::Error::success();
  // cuMemsetD8 is asynchronous on the legacy stream: wait, so that a launch
  // on any stream sees the filled buffer.
  return callAndSynchronize(
      [&](const auto &api) { return api.cuMemsetD8(pointer, byte, bytes); },
      "cuMemsetD8", CU_STREAM_LEGACY, "after cuMemsetD8");
}

llvm::Error DeviceBuffer::copyFromDevice(uint64_t source, size_t count,
                                         const Stream &stream) {
  if (llvm::Error error = checkCopyFits(count, bytes, "into"))
    return error;
  if (count == 0)
    return llvm::Error::success();
  CUstream handle = static_cast<CUstream>(stream.handle());
  return callAndSynchronize(
      [&](const auto &api) {
        return api.cuMemcpyDtoDAsync(pointer, source, count, handle);
      },
      "cuMemcpyDtoDAsync", handle);
}

llvm::Error DeviceBuffer::fill(uint8_t byte, const Stream &stream) {
  if (llvm::Error error = fillAsync(byte, stream))
    return error;
  if (bytes == 0)
    return llvm::Error::success();
  return callDriver(
      [&](const auto &api) {
        return api.cuStreamSynchronize(static_cast<CUstream>(stream.handle()));
      },
      "cuStreamSynchronize");
}

llvm::Error DeviceBuffer::fillAsync(uint8_t byte, const Stream &stream) {
  if (bytes == 0)
    return llvm::Error::success();
  return callDriver(
      [&](const auto &api) {
        return api.cuMemsetD8Async(pointer, byte, bytes,
                                   static_cast<CUstream>(stream.handle()));
      },
      "cuMemsetD8Async");
}

llvm::Expected<std::string> DeviceBuffer::ipcHandle() const {
  if (!pointer)
    return llvm::createStringError("an empty device buffer has no IPC handle");
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  CUipcMemHandle handle;
  if (llvm::Error error = driver->check(
          driver->api.cuIpcGetMemHandle(&handle, pointer), "cuIpcGetMemHandle"))
    return std::move(error);
  return std::string(handle.reserved, sizeof handle.reserved);
}

//===----------------------------------------------------------------------===//
// IpcMapping and PinnedBuffer
//===----------------------------------------------------------------------===//

llvm::Expected<IpcMapping> IpcMapping::open(llvm::StringRef handle) {
  CUipcMemHandle ipc;
  if (handle.size() != sizeof ipc.reserved)
    return llvm::createStringError(
        "an IPC handle has %zu bytes, not %zu", sizeof ipc.reserved,
        handle.size());
  std::memcpy(ipc.reserved, handle.data(), sizeof ipc.reserved);
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  CUdeviceptr pointer = 0;
  if (llvm::Error error = driver->check(
          driver->api.cuIpcOpenMemHandle(&pointer, ipc,
                                         CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
          "cuIpcOpenMemHandle"))
    return std::move(error);
  IpcMapping mapping;
  mapping.pointer = pointer;
  return std::move(mapping);
}

IpcMapping::IpcMapping(IpcMapping &&other) noexcept
    : pointer(std::exchange(other.pointer, 0)) {}

IpcMapping &IpcMapping::operator=(IpcMapping &&other) noexcept {
  return moveInto(*this, std::move(other));
}

IpcMapping::~IpcMapping() {
  if (pointer)
    releaseWithDriver([&](CudaDriver::Impl &driver) {
      return driver.api.cuIpcCloseMemHandle(pointer);
    });
}

llvm::Expected<PinnedBuffer> PinnedBuffer::allocate(size_t bytes) {
  PinnedBuffer buffer;
  if (bytes == 0)
    return std::move(buffer);
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  void *memory = nullptr;
  if (llvm::Error error =
          driver->check(driver->api.cuMemHostAlloc(&memory, bytes, 0),
                        "cuMemHostAlloc", std::to_string(bytes) + " bytes"))
    return std::move(error);
  buffer.memory = memory;
  buffer.bytes = bytes;
  return std::move(buffer);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer &&other) noexcept
    : memory(std::exchange(other.memory, nullptr)),
      bytes(std::exchange(other.bytes, 0)) {}

PinnedBuffer &PinnedBuffer::operator=(PinnedBuffer &&other) noexcept {
  return moveInto(*this, std::move(other));
}

PinnedBuffer::~PinnedBuffer() {
  if (memory)
    releaseWithDriver([&](CudaDriver::Impl &driver) {
      return driver.api.cuMemFreeHost(memory);
    });
}

//===----------------------------------------------------------------------===//
// Stream and Event
//===----------------------------------------------------------------------===//

llvm::Expected<Stream> Stream::create() {
  return createOwned<Stream, CUstream>(
      [](const auto &api, CUstream *handle) {
        return api.cuStreamCreate(handle, CU_STREAM_NON_BLOCKING);
      },
      "cuStreamCreate");
}

void Stream::release(void *stream) {
  releaseWithDriver([&](CudaDriver::Impl &driver) {
    return driver.api.cuStreamDestroy(static_cast<CUstream>(stream));
  });
}

llvm::Error Stream::synchronize() {
  if (!raw)
    return llvm::createStringError("cannot synchronize a stream never created");
  return callDriver(
      [&](const auto &api) {
        return api.cuStreamSynchronize(static_cast<CUstream>(raw));
      },
      "cuStreamSynchronize");
}

llvm::Expected<Event> Event::create() {
  // Not CU_EVENT_DISABLE_TIMING: these events time kernels.
  return createOwned<Event, CUevent>(
      [](const auto &api, CUevent *handle) {
        return api.cuEventCreate(handle, CU_EVENT_DEFAULT);
      },
      "cuEventCreate");
}

void Event::release(void *event) {
  releaseWithDriver([&](CudaDriver::Impl &driver) {
    return driver.api.cuEventDestroy(static_cast<CUevent>(event));
  });
}

llvm::Error Event::record(const Stream &stream) {
  if (!raw)
    return llvm::createStringError("cannot record an event never created");
  return callDriver(
      [&](const auto &api) {
        return api.cuEventRecord(static_cast<CUevent>(raw),
                                 static_cast<CUstream>(stream.handle()));
      },
      "cuEventRecord");
}

llvm::Expected<float> Event::elapsedMs(const Event &start, const Event &end) {
  if (!start.raw || !end.raw)
    return llvm::createStringError("cannot time events never created");
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  if (llvm::Error error = driver->check(
          driver->api.cuEventSynchronize(static_cast<CUevent>(end.raw)),
          "cuEventSynchronize"))
    return std::move(error);
  float milliseconds = 0;
  if (llvm::Error error =
          driver->check(driver->api.cuEventElapsedTime(
                            &milliseconds, static_cast<CUevent>(start.raw),
                            static_cast<CUevent>(end.raw)),
                        "cuEventElapsedTime"))
    return std::move(error);
  return milliseconds;
}

//===----------------------------------------------------------------------===//
// Function
//===----------------------------------------------------------------------===//

llvm::Error Function::setMaxDynamicSharedMemory(int64_t bytes) {
  if (!function)
    return llvm::createStringError("no kernel function");
  if (bytes < 0 || bytes > INT_MAX)
    return llvm::createStringError(
        "%lld bytes of dynamic shared memory is not a valid request",
        static_cast<long long>(bytes));
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  return driver->check(
      driver->api.cuFuncSetAttribute(
          static_cast<CUfunction>(function),
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(bytes)),
      "cuFuncSetAttribute",
      llvm::formatv("{0} bytes of dynamic shared memory (the device allows "
                    "{1} per block, less the kernel's static shared memory)",
                    bytes, driver->maxSharedOptinBytes)
          .str());
}

llvm::Expected<std::array<int, 2>> Function::registersAndSpills() const {
  if (!function)
    return llvm::createStringError("no kernel function");
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  std::array<int, 2> result = {0, 0};
  auto handle = static_cast<CUfunction>(function);
  if (llvm::Error error =
          driver->check(driver->api.cuFuncGetAttribute(
                            &result[0], CU_FUNC_ATTRIBUTE_NUM_REGS, handle),
                        "cuFuncGetAttribute", "NUM_REGS"))
    return std::move(error);
  if (llvm::Error error = driver->check(
          driver->api.cuFuncGetAttribute(
              &result[1], CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, handle),
          "cuFuncGetAttribute", "LOCAL_SIZE_BYTES"))
    return std::move(error);
  return result;
}

llvm::Expected<int64_t> Function::residentCtas(int64_t threads,
                                               int64_t sharedBytes) const {
  if (!function)
    return llvm::createStringError("no kernel function");
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  int perSM = 0;
  if (llvm::Error error = driver->check(
          driver->api.cuOccupancyMaxActiveBlocksPerMultiprocessor(
              &perSM, static_cast<CUfunction>(function),
              static_cast<int>(threads), static_cast<size_t>(sharedBytes)),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    return std::move(error);
  return static_cast<int64_t>(std::max(perSM, 1)) * driver->multiprocessors;
}

llvm::Error Function::launch(const LaunchConfig &config,
                             llvm::ArrayRef<void *> params,
                             const Stream &stream) const {
  if (!function)
    return llvm::createStringError("no kernel function");
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  // cuLaunchKernel only reads the array, but takes it as `void **`.
  void **kernelParams = const_cast<void **>(params.data());
  return driver->check(
      driver->api.cuLaunchKernel(
          static_cast<CUfunction>(function), config.grid[0], config.grid[1],
          config.grid[2], config.block[0], config.block[1], config.block[2],
          config.sharedMemoryBytes, static_cast<CUstream>(stream.handle()),
          params.empty() ? nullptr : kernelParams, nullptr),
      "cuLaunchKernel",
      llvm::formatv("grid ({0}, {1}, {2}), block ({3}, {4}, {5}), {6} bytes "
                    "of dynamic shared memory",
                    config.grid[0], config.grid[1], config.grid[2],
                    config.block[0], config.block[1], config.block[2],
                    config.sharedMemoryBytes)
          .str());
}

namespace {
/// cuTensorMapEncodeTiled's arguments for a request, and how a failure
/// describes it.
struct TiledArguments {
  CUtensorMapDataType type;
  CUtensorMapSwizzle swizzle;
  cuuint32_t rank;
  cuuint64_t dims[3];
  cuuint64_t strides[2];
  cuuint32_t box[3];
  cuuint32_t elementStrides[3] = {1, 1, 1};
  std::string detail;
};
} // namespace

static llvm::Expected<TiledArguments>
tiledArguments(const TensorMapRequest &request) {
  TiledArguments args;
  switch (request.element) {
  case ElementType::F16:
    args.type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    break;
  case ElementType::BF16:
    args.type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    break;
  case ElementType::F32:
    args.type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    break;
  default:
    return llvm::createStringError(
        llvm::formatv("no tensor map for {0} elements", name(request.element))
            .str());
  }
  switch (request.swizzleBytes) {
  case 32:
    args.swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
    break;
  case 64:
    args.swizzle = CU_TENSOR_MAP_SWIZZLE_64B;
    break;
  case 128:
    args.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    break;
  default:
    return llvm::createStringError(
        llvm::formatv("no {0}-byte swizzle", request.swizzleBytes).str());
  }
  // Innermost first; the strides (bytes) are the row's and the plane's.
  // A 3-D tensor is copied one plane at a time.
  args.rank = request.planes ? 3 : 2;
  int64_t rowBytes = request.cols * byteWidth(request.element);
  args.dims[0] = static_cast<cuuint64_t>(request.cols);
  args.dims[1] = static_cast<cuuint64_t>(request.rows);
  args.dims[2] = static_cast<cuuint64_t>(request.planes);
  args.strides[0] = static_cast<cuuint64_t>(rowBytes);
  args.strides[1] = static_cast<cuuint64_t>(rowBytes * request.rows);
  args.box[0] = static_cast<cuuint32_t>(request.boxCols);
  args.box[1] = static_cast<cuuint32_t>(request.boxRows);
  args.box[2] = 1;
  args.detail =
      llvm::formatv("a {0}{1} x {2} tensor, box {3} x {4}, {5}-byte swizzle",
                    request.planes ? std::to_string(request.planes) + " x " : "",
                    request.rows, request.cols, request.boxRows,
                    request.boxCols, request.swizzleBytes)
          .str();
  return args;
}

template <typename Encode>
static CUresult callEncode(Encode encode, const TiledArguments &args,
                           uint64_t address, void *map) {
  return static_cast<CUresult>(
      encode(static_cast<CUtensorMap *>(map), args.type, args.rank,
             reinterpret_cast<void *>(static_cast<uintptr_t>(address)),
             args.dims, args.strides, args.box, args.elementStrides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, args.swizzle,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

llvm::Error phobos::cuda::encodeTensorMap(const TensorMapRequest &request,
                                          void *map) {
  llvm::Expected<TiledArguments> args = tiledArguments(request);
  if (!args)
    return args.takeError();
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  return driver->check(callEncode(driver->api.cuTensorMapEncodeTiled, *args,
                                  request.address, map),
                       "cuTensorMapEncodeTiled", args->detail);
}

llvm::Error phobos::cuda::encodeTensorMapWith(EncodeTiledFunction encode,
                                              const TensorMapRequest &request,
                                              void *map) {
  llvm::Expected<TiledArguments> args = tiledArguments(request);
  if (!args)
    return args.takeError();
  // Without the driver's error names: the caller's driver need not be ours.
  int result = callEncode(
      [&](CUtensorMap *into, CUtensorMapDataType type, cuuint32_t rank,
          void *address, const cuuint64_t *dims, const cuuint64_t *strides,
          const cuuint32_t *box, const cuuint32_t *elementStrides,
          CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
          CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
        // cuuint64_t is unsigned long long, uint64_t unsigned long: the
        // same 64 bits.
        return encode(into, type, rank, address,
                      reinterpret_cast<const uint64_t *>(dims),
                      reinterpret_cast<const uint64_t *>(strides), box,
                      elementStrides, interleave, swizzle, l2, fill);
      },
      *args, request.address, map);
  if (result == CUDA_SUCCESS)
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::formatv("cuTensorMapEncodeTiled failed: CUresult {0}: {1}", result,
                    args->detail)
          .str());
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

bool phobos::cuda::ptxHasLineInfo(llvm::StringRef ptx) {
  return ptx.contains("\n\t.file\t");
}

llvm::Expected<Module> Module::load(llvm::StringRef image) {
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  // PTX must be NUL-terminated and a StringRef need not be; the copy costs
  // nothing next to the JIT.
  std::string text = image.str();
  constexpr size_t logBytes = 64 * 1024;
  std::string errorLog(logBytes, '\0'), infoLog(logBytes, '\0');
  // The JIT keeps PTX's `.loc` lines as the line table, as ptxas -lineinfo
  // does; a cubin has its own already.
  CUjit_option options[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_GENERATE_LINE_INFO};
  void *values[] = {errorLog.data(), reinterpret_cast<void *>(logBytes),
                    infoLog.data(), reinterpret_cast<void *>(logBytes),
                    reinterpret_cast<void *>(uintptr_t(ptxHasLineInfo(image)))};
  CUmodule handle = nullptr;
  CUresult result = driver->api.cuModuleLoadDataEx(
      &handle, text.c_str(), std::size(options), options, values);
  if (result != CUDA_SUCCESS) {
    // The driver writes NUL-terminated logs; the error log says why the
    // JIT failed, the info log sometimes holds the only hint.
    std::string log = errorLog.c_str();
    if (log.empty())
      log = infoLog.c_str();
    return driver->check(result, "cuModuleLoadDataEx",
                         llvm::StringRef(log).trim());
  }
  return Module::adopt(handle);
}

void Module::release(void *module) {
  releaseWithDriver([&](CudaDriver::Impl &driver) {
    return driver.api.cuModuleUnload(static_cast<CUmodule>(module));
  });
}

llvm::Expected<Function> Module::getFunction(llvm::StringRef name) const {
  if (!raw)
    return llvm::createStringError("no module loaded");
  llvm::Expected<CudaDriver::Impl &> driver = CudaDriver::Impl::current();
  if (!driver)
    return driver.takeError();
  CUfunction handle = nullptr;
  if (llvm::Error error = driver->check(
          driver->api.cuModuleGetFunction(
              &handle, static_cast<CUmodule>(raw), name.str().c_str()),
          "cuModuleGetFunction", ("kernel '" + name + "'").str()))
    return std::move(error);
  Function function;
  function.function = handle;
  return function;
}
