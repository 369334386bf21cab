//===- TileBufferPool.cpp - Freed tile buffers kept for reuse -------------===//

#include "Phobos/ClusterRuntime/TileBufferPool.h"

using namespace phobos::cluster::runtime;

std::unique_ptr<TileBuffer> TileBufferPool::take(int64_t bytes) {
  absl::MutexLock lock(&mu);
  for (auto it = buffers.rbegin(); it != buffers.rend(); ++it)
    if ((*it)->bytes() == bytes) {
      std::unique_ptr<TileBuffer> found = std::move(*it);
      buffers.erase(std::next(it).base());
      pooled -= bytes;
      return found;
    }
  return nullptr;
}

void TileBufferPool::give(std::unique_ptr<TileBuffer> buffer,
                          int64_t limitBytes) {
  std::vector<std::unique_ptr<TileBuffer>> dropped;
  {
    absl::MutexLock lock(&mu);
    pooled += buffer->bytes();
    buffers.push_back(std::move(buffer));
    dropped = evictLocked(limitBytes);
  }
  // Unmapping a large buffer takes a while: not under the lock.
  dropped.clear();
}

void TileBufferPool::trim(int64_t limitBytes) {
  std::vector<std::unique_ptr<TileBuffer>> dropped;
  {
    absl::MutexLock lock(&mu);
    dropped = evictLocked(limitBytes);
  }
  dropped.clear();
}

std::vector<std::unique_ptr<TileBuffer>>
TileBufferPool::evictLocked(int64_t limitBytes) {
  std::vector<std::unique_ptr<TileBuffer>> dropped;
  while (!buffers.empty() && pooled > std::max<int64_t>(0, limitBytes)) {
    pooled -= buffers.front()->bytes();
    dropped.push_back(std::move(buffers.front()));
    buffers.pop_front();
  }
  return dropped;
}

int64_t TileBufferPool::pooledBytes() const {
  absl::MutexLock lock(&mu);
  return pooled;
}

size_t TileBufferPool::pooledBuffers() const {
  absl::MutexLock lock(&mu);
  return buffers.size();
}
