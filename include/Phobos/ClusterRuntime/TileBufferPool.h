//===- TileBufferPool.h - Freed tile buffers kept for reuse -----*- C++ -*-===//
//
// A pod runs unit after unit with tiles of the same few sizes. A fresh
// buffer of host memory is faulted in page by page on its first touch (a
// 16 MiB tile is 4,096 faults), and freeing it unmaps them again; the pool
// keeps freed buffers so that the next allocation of the same size takes
// memory already touched. The pod decides how many bytes it may keep (its
// memory budget less its resident tiles); the pool drops its oldest buffers
// past that.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_CLUSTERRUNTIME_TILEBUFFERPOOL_H
#define PHOBOS_CLUSTERRUNTIME_TILEBUFFERPOOL_H

#include "Phobos/ClusterRuntime/PodBackend.h"

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace phobos::cluster::runtime {

/// Freed tile buffers by size, oldest first. Thread-safe; buffers it drops
/// are released outside its lock.
class TileBufferPool {
public:
  /// The most recently kept buffer of exactly `bytes`, or null. Its
  /// contents are whatever its last tile left there.
  std::unique_ptr<TileBuffer> take(int64_t bytes);
  /// Keeps `buffer`, then drops the oldest buffers until at most
  /// `limitBytes` are kept (`buffer` too, when it alone is past the limit).
  void give(std::unique_ptr<TileBuffer> buffer, int64_t limitBytes);
  /// Drops the oldest buffers until at most `limitBytes` are kept (all of
  /// them for a limit of 0 or less).
  void trim(int64_t limitBytes);

  int64_t pooledBytes() const;
  size_t pooledBuffers() const;

private:
  /// Takes the oldest buffers out until at most `limitBytes` remain.
  std::vector<std::unique_ptr<TileBuffer>> evictLocked(int64_t limitBytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  mutable absl::Mutex mu;
  std::deque<std::unique_ptr<TileBuffer>> buffers ABSL_GUARDED_BY(mu);
  int64_t pooled ABSL_GUARDED_BY(mu) = 0;
};

} // namespace phobos::cluster::runtime

#endif // PHOBOS_CLUSTERRUNTIME_TILEBUFFERPOOL_H
