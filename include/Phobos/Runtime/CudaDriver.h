//===- CudaDriver.h - The CUDA driver API, opened at run time ---*- C++ -*-===//
//
// Phobos never links against libcuda: the driver library is opened with
// dlopen when the first GPU call is made, and its entry points are resolved
// with cuGetProcAddress for the CUDA version the project compiles against
// (CUDA_VERSION from cuda.h), so everything builds and the CPU tests run on
// machines without a GPU or driver. Every failure is an llvm::Error whose
// message names the driver call and the CUresult's name and description.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_RUNTIME_CUDADRIVER_H
#define PHOBOS_RUNTIME_CUDADRIVER_H

#include "Phobos/Runtime/Launcher.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace phobos::cuda {

class Stream;

/// Encodes the CUtensorMap of `request` into `map` (128 bytes, 64-byte
/// aligned) with cuTensorMapEncodeTiled: zeros outside the tensor. The
/// TensorMapEncoder GPU launches pass to bindArguments.
llvm::Error encodeTensorMap(const TensorMapRequest &request, void *map);

/// cuTensorMapEncodeTiled's signature (CUresult and the enums as int).
/// phobos-c/Runtime.h declares it again as PhobosEncodeTiledFunction: the C
/// header cannot include C++, and the runtime does not depend on the C API;
/// a static_assert in lib/CAPI/Runtime.cpp keeps the two the same.
using EncodeTiledFunction = int (*)(void *map, int type, uint32_t rank,
                                    void *address, const uint64_t *dims,
                                    const uint64_t *strides,
                                    const uint32_t *box,
                                    const uint32_t *elementStrides,
                                    int interleave, int swizzle, int l2,
                                    int fill);

/// encodeTensorMap through a caller's cuTensorMapEncodeTiled (a launcher
/// with its own handle on the driver: the Python package's).
llvm::Error encodeTensorMapWith(EncodeTiledFunction encode,
                                const TensorMapRequest &request, void *map);

/// The loaded driver, its primary context on one device, and its entry
/// points. One per process; created on first use.
class CudaDriver {
public:
  /// Opens libcuda.so.1, initialises it and makes the primary context of
  /// `device` current. Fails with a clear message where there is no driver
  /// or no device.
  static llvm::Expected<CudaDriver &> get(int device = 0);

  /// "NVIDIA H200 (sm_90, 139 GiB)".
  std::string describeDevice() const;
  /// Compute capability, e.g. {9, 0}.
  std::array<int, 2> computeCapability() const;
  /// The chip Phobos compiles for on this device: sm_XY, with the
  /// architecture-specific features on 9.0 (sm_90a: wgmma).
  std::string targetChip() const;
  /// The device's memory, in bytes (cuDeviceTotalMem).
  int64_t totalMemoryBytes() const;
  /// Largest dynamic shared memory a CTA may opt in to, in bytes.
  int64_t maxSharedMemoryPerBlock() const;
  /// The device ordinal the driver was opened on.
  int ordinal() const;
  /// The L2 cache's size in bytes.
  int64_t l2CacheBytes() const;

  struct Impl;
  ~CudaDriver();

private:
  explicit CudaDriver(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
  friend class Module;
  friend class DeviceBuffer;
  friend class Stream;
  friend class Event;
  friend class Function;
};

class Stream;

/// A buffer in device memory.
class DeviceBuffer {
public:
  static llvm::Expected<DeviceBuffer> allocate(size_t bytes);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  uint64_t devicePointer() const { return pointer; }
  size_t size() const { return bytes; }
  /// Copies `count` bytes from the host and waits until they are in the
  /// buffer, so that a launch on any stream reads them.
  llvm::Error copyFromHost(const void *data, size_t count);
  llvm::Error copyToHost(void *data, size_t count) const;
  /// Fills the buffer with `byte` (cuMemsetD8) and waits for it.
  llvm::Error fill(uint8_t byte);
  /// Fills the buffer with `byte` on `stream` and waits for it: done before
  /// any later launch, whatever its stream (cuMemsetD8 on the default
  /// stream is asynchronous and ordered only with that stream).
  llvm::Error fill(uint8_t byte, const Stream &stream);
  /// Copies `count` bytes from device address `source` into the buffer on
  /// `stream` and waits for it (device-to-device copies are asynchronous
  /// otherwise). With unified addressing the source may be memory of
  /// another device, or of another process opened through IpcMapping.
  llvm::Error copyFromDevice(uint64_t source, size_t count,
                             const Stream &stream);
  /// A handle through which another process of this host can open the
  /// buffer (cuIpcGetMemHandle): CU_IPC_HANDLE_SIZE bytes.
  llvm::Expected<std::string> ipcHandle() const;
  /// Fills the buffer with `byte`, in order on `stream` (cuMemsetD8Async).
  llvm::Error fillAsync(uint8_t byte, const Stream &stream);

private:
  uint64_t pointer = 0;
  size_t bytes = 0;
};

/// Device memory of another process on this host, opened from the handle
/// DeviceBuffer::ipcHandle gave it (cuIpcOpenMemHandle, with peer access
/// enabled when it lives on another device); closed when destroyed.
class IpcMapping {
public:
  static llvm::Expected<IpcMapping> open(llvm::StringRef handle);
  IpcMapping() = default;
  IpcMapping(IpcMapping &&other) noexcept;
  IpcMapping &operator=(IpcMapping &&other) noexcept;
  ~IpcMapping();
  uint64_t devicePointer() const { return pointer; }

private:
  uint64_t pointer = 0;
};

/// Page-locked host memory (cuMemHostAlloc): copies between it and the
/// device run at the link's full speed.
class PinnedBuffer {
public:
  static llvm::Expected<PinnedBuffer> allocate(size_t bytes);
  PinnedBuffer() = default;
  PinnedBuffer(PinnedBuffer &&other) noexcept;
  PinnedBuffer &operator=(PinnedBuffer &&other) noexcept;
  ~PinnedBuffer();
  void *data() const { return memory; }
  size_t size() const { return bytes; }

private:
  void *memory = nullptr;
  size_t bytes = 0;
};

/// The driver object (CUstream, CUevent, CUmodule) a Stream, an Event or a
/// Module owns: moved, never copied, and released with `Owner::release`
/// when the owner is destroyed or assigned another. Null until created.
template <typename Owner> class OwnedHandle {
public:
  OwnedHandle() = default;
  OwnedHandle(OwnedHandle &&other) noexcept
      : raw(std::exchange(other.raw, nullptr)) {}
  OwnedHandle &operator=(OwnedHandle &&other) noexcept {
    if (this != &other) {
      reset();
      raw = std::exchange(other.raw, nullptr);
    }
    return *this;
  }
  ~OwnedHandle() { reset(); }
  void *handle() const { return raw; }
  /// Takes ownership of a handle the driver just created.
  static Owner adopt(void *handle) {
    Owner owner;
    owner.raw = handle;
    return owner;
  }

protected:
  void reset() {
    if (void *old = std::exchange(raw, nullptr))
      Owner::release(old);
  }
  void *raw = nullptr;
};

class Stream : public OwnedHandle<Stream> {
public:
  /// A new non-blocking stream.
  static llvm::Expected<Stream> create();
  llvm::Error synchronize();

private:
  friend class OwnedHandle<Stream>;
  static void release(void *stream);
};

class Event : public OwnedHandle<Event> {
public:
  static llvm::Expected<Event> create();
  llvm::Error record(const Stream &stream);
  /// Milliseconds between two recorded events (waits for `end`).
  static llvm::Expected<float> elapsedMs(const Event &start, const Event &end);

private:
  friend class OwnedHandle<Event>;
  static void release(void *event);
};

/// A kernel entry point of a loaded module.
class Function {
public:
  void *handle() const { return function; }
  /// Allows `bytes` of dynamic shared memory (needed above 48 KiB).
  llvm::Error setMaxDynamicSharedMemory(int64_t bytes);
  /// Registers per thread and local memory (spill) bytes per thread.
  llvm::Expected<std::array<int, 2>> registersAndSpills() const;
  /// The CTAs of `threads` threads and `sharedBytes` of dynamic shared
  /// memory the GPU runs at once (per SM, at least one, times the SMs):
  /// the grid a persistent kernel launches (BoundLaunch::getGrid). Set the
  /// shared-memory allowance first.
  llvm::Expected<int64_t> residentCtas(int64_t threads,
                                       int64_t sharedBytes) const;

  struct LaunchConfig {
    std::array<uint32_t, 3> grid = {1, 1, 1};
    std::array<uint32_t, 3> block = {1, 1, 1};
    uint32_t sharedMemoryBytes = 0;
  };
  /// Launches with `params` (pointers to each argument's value, as
  /// cuLaunchKernel takes them) on `stream`.
  llvm::Error launch(const LaunchConfig &config, llvm::ArrayRef<void *> params,
                     const Stream &stream) const;

private:
  friend class Module;
  void *function = nullptr;
};

/// Whether `ptx` carries line info (PTXEmitter's `.file` and `.loc` lines).
/// The assemblers are asked to keep it only then (ptxas -lineinfo, the
/// JIT's CU_JIT_GENERATE_LINE_INFO): on PTX without it, they would embed the
/// PTX's own lines, and a cubin about three times as large.
bool ptxHasLineInfo(llvm::StringRef ptx);

/// A loaded module (PTX, JIT-compiled by the driver, or a cubin).
class Module : public OwnedHandle<Module> {
public:
  /// Loads PTX text or a cubin image. On a JIT failure the message holds
  /// the driver's error log. PTX with line info keeps it (ptxHasLineInfo).
  static llvm::Expected<Module> load(llvm::StringRef image);
  llvm::Expected<Function> getFunction(llvm::StringRef name) const;

private:
  friend class OwnedHandle<Module>;
  static void release(void *module);
};

} // namespace phobos::cuda

#endif // PHOBOS_RUNTIME_CUDADRIVER_H
