//===- PodBackend.h - Where a pod keeps tiles and runs leaves ---*- C++ -*-===//
//
// A pod runs its instructions on a backend: the CPU interpreter (tiles in
// host memory, leaves as tile-dialect MLIR; what CI runs) or a GPU (tiles
// in device memory, leaves as PTX through the CUDA driver, GPU-to-GPU
// copies between pods of one host through CUDA IPC).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_CLUSTERRUNTIME_PODBACKEND_H
#define PHOBOS_CLUSTERRUNTIME_PODBACKEND_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace phobos::cluster::wire {
class StartJob;
} // namespace phobos::cluster::wire

namespace phobos::cluster::runtime {

/// Room for one super-tile.
class TileBuffer {
public:
  virtual ~TileBuffer();
  int64_t bytes() const { return size; }
  /// The tile in host memory, or null when it lives on a device.
  virtual void *host() { return nullptr; }
  /// The device address, or 0.
  virtual uint64_t device() const { return 0; }

protected:
  int64_t size = 0;
};

/// Host memory a tile passes through on its way to or from a device
/// (page-locked on a GPU, so that copies run at full speed).
class Staging {
public:
  virtual ~Staging();
  virtual void *data() = 0;
};

/// A scalar argument of a leaf launch.
struct LeafScalar {
  double value = 0;
  bool isFloat = true;
};

class Backend {
public:
  virtual ~Backend();

  /// "interpreter" or "gpu".
  virtual std::string kind() const = 0;
  /// "interpreter (2 threads)", "NVIDIA H200 (sm_90, 139 GiB), device 0".
  virtual std::string describe() const = 0;
  /// "sm_90" for a GPU, empty for the interpreter.
  virtual std::string chip() const { return ""; }
  virtual int deviceOrdinal() const { return -1; }
  virtual int64_t memoryBytes() const { return 0; }

  /// Makes the job's leaves runnable (parses or loads them), replacing the
  /// last job's; compiled leaves are kept across jobs.
  virtual absl::Status prepare(const wire::StartJob &job) = 0;

  virtual absl::StatusOr<std::unique_ptr<TileBuffer>> allocate(int64_t bytes,
                                                               bool zero) = 0;
  /// Whether a freed tile's buffer may hold a later tile of its size (the
  /// pod's TileBufferPool): host memory is, to skip faulting fresh pages in
  /// for every tile; device memory is not pooled (unmeasured on a GPU).
  virtual bool reusesTileBuffers() const { return false; }
  /// Sets a reused buffer to zeros, for an allocation that must start so.
  virtual absl::Status zero(TileBuffer &buffer);
  /// Host memory of `bytes` for tiles that do not live in host memory.
  virtual absl::StatusOr<std::unique_ptr<Staging>> staging(int64_t bytes);
  /// Host bytes into the buffer, and back.
  virtual absl::Status upload(TileBuffer &buffer, const void *data,
                              int64_t bytes) = 0;
  virtual absl::Status download(const TileBuffer &buffer, void *data,
                                int64_t bytes) = 0;

  /// Launches leaf `leaf` of the prepared job over its grid with its tensor
  /// parameters bound to `tensors` (each of extents `shapes`, in the
  /// leaf's order) and its scalars to `scalars`, and waits for it. A leaf
  /// the job does not have is an InvalidArgument error.
  absl::Status compute(unsigned leaf, const std::vector<TileBuffer *> &tensors,
                       const std::vector<std::vector<int64_t>> &shapes,
                       const std::vector<LeafScalar> &scalars);

  /// GPU to GPU between processes of one host (CUDA IPC).
  virtual bool canShareDevice() const { return false; }
  /// A handle another pod of this host can open.
  virtual absl::StatusOr<std::string> exportBuffer(TileBuffer &buffer);
  /// Copies `bytes` from the buffer behind `handle` into `target`.
  virtual absl::Status copyFromExported(const std::string &handle,
                                        int64_t bytes, TileBuffer &target);

protected:
  /// The prepared job's leaves.
  virtual size_t numLeaves() const = 0;
  /// compute() of a leaf below numLeaves().
  virtual absl::Status
  computeLeaf(unsigned leaf, const std::vector<TileBuffer *> &tensors,
              const std::vector<std::vector<int64_t>> &shapes,
              const std::vector<LeafScalar> &scalars) = 0;
};

/// The CPU interpreter, running each leaf's CTAs on `threads` threads (0:
/// every core).
std::unique_ptr<Backend> createInterpreterBackend(unsigned threads);

/// GPU `device` through the CUDA driver; fails where there is none.
absl::StatusOr<std::unique_ptr<Backend>> createGpuBackend(int device);

} // namespace phobos::cluster::runtime

#endif // PHOBOS_CLUSTERRUNTIME_PODBACKEND_H
