//===- TileBufferPoolTest.cpp - Freed tile buffers kept for reuse ---------===//

#include "Phobos/ClusterRuntime/TileBufferPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace phobos::cluster::runtime;

namespace {

/// A buffer that counts the live ones, so that a test sees which the pool
/// dropped.
class CountedTile : public TileBuffer {
public:
  explicit CountedTile(int64_t bytes) {
    size = bytes;
    ++live;
  }
  ~CountedTile() override { --live; }
  static inline std::atomic<int> live{0};
};

std::unique_ptr<TileBuffer> tile(int64_t bytes) {
  return std::make_unique<CountedTile>(bytes);
}

TEST(TileBufferPool, AFreedBufferIsTakenAgainBySize) {
  TileBufferPool pool;
  std::unique_ptr<TileBuffer> first = tile(64);
  TileBuffer *address = first.get();
  pool.give(std::move(first), 1 << 20);
  pool.give(tile(128), 1 << 20);
  EXPECT_EQ(pool.pooledBytes(), 192);
  EXPECT_EQ(pool.take(32), nullptr);
  std::unique_ptr<TileBuffer> again = pool.take(64);
  EXPECT_EQ(again.get(), address);
  EXPECT_EQ(pool.take(64), nullptr);
  EXPECT_EQ(pool.pooledBytes(), 128);
  EXPECT_EQ(pool.pooledBuffers(), 1u);
  // Of one size, the most recently freed (the likeliest still in cache).
  pool.give(std::move(again), 1 << 20);
  std::unique_ptr<TileBuffer> newer = tile(64);
  TileBuffer *newest = newer.get();
  pool.give(std::move(newer), 1 << 20);
  EXPECT_EQ(pool.take(64).get(), newest);
}

TEST(TileBufferPool, TheLimitDropsTheOldestFirst) {
  int before = CountedTile::live;
  {
    TileBufferPool pool;
    pool.give(tile(100), 250);
    pool.give(tile(200), 250);
    // 300 bytes are past 250: the older buffer goes.
    EXPECT_EQ(pool.pooledBytes(), 200);
    EXPECT_EQ(pool.take(100), nullptr);
    EXPECT_EQ(CountedTile::live, before + 1);
    // A buffer past the limit alone is not kept.
    pool.give(tile(300), 250);
    EXPECT_EQ(pool.pooledBytes(), 0);
    EXPECT_EQ(CountedTile::live, before);
    pool.give(tile(100), 250);
    pool.give(tile(100), 250);
    pool.trim(150);
    EXPECT_EQ(pool.pooledBytes(), 100);
    // No room at all (a pod past its budget) drops everything.
    pool.trim(-50);
    EXPECT_EQ(pool.pooledBuffers(), 0u);
    pool.give(tile(100), 1000);
  }
  // What a pool keeps goes with it.
  EXPECT_EQ(CountedTile::live, before);
}

TEST(TileBufferPool, ThreadsShareItWithinTheLimit) {
  int before = CountedTile::live;
  constexpr int64_t limit = 10 * 64;
  TileBufferPool pool;
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        int64_t bytes = 64 * (1 + (i + t) % 3);
        std::unique_ptr<TileBuffer> buffer = pool.take(bytes);
        if (buffer) {
          ++taken;
          EXPECT_EQ(buffer->bytes(), bytes);
        } else {
          pool.trim(limit - bytes);
          buffer = tile(bytes);
        }
        pool.give(std::move(buffer), limit);
        EXPECT_LE(pool.pooledBytes(), limit);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_GT(taken.load(), 0);
  EXPECT_LE(pool.pooledBytes(), limit);
  // Every buffer is either pooled or dropped, none twice.
  EXPECT_EQ(CountedTile::live, before + static_cast<int>(pool.pooledBuffers()));
  int64_t bytes = 0;
  while (std::unique_ptr<TileBuffer> buffer = pool.take(64))
    bytes += buffer->bytes();
  for (int64_t size : {128, 192})
    while (std::unique_ptr<TileBuffer> buffer = pool.take(size))
      bytes += buffer->bytes();
  EXPECT_EQ(pool.pooledBytes(), 0);
  EXPECT_LE(bytes, limit);
  EXPECT_EQ(CountedTile::live, before);
}

} // namespace
