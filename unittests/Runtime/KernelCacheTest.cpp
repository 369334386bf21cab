//===- KernelCacheTest.cpp - The on-disk kernel cache ---------------------===//

#include "Phobos/Runtime/KernelCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sys/stat.h>
#include <thread>

using namespace phobos;

namespace {

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("phobos-cache", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
};

KernelCacheKey sampleKey() {
  KernelCacheKey key;
  key.source = "kernel k(a: tensor<f32>[N]) {\n}\n";
  key.kernel = "k";
  key.variant = {{"BLOCK", 64}, {"D", 128}};
  key.chip = "sm_90";
  key.compiler = "phobos-test";
  return key;
}

llvm::json::Value sampleContract() {
  return llvm::json::Object{{"kernel", "k"}, {"params", llvm::json::Array{}}};
}

TEST(KernelCacheTest, DigestIsTheDocumentedLayout) {
  KernelCacheKey key = sampleKey();
  EXPECT_EQ(key.digest().size(), 64u);
  KernelCacheKey other = key;
  other.variant[0].second = 128;
  EXPECT_NE(key.digest(), other.digest());
  other = key;
  other.chip = "sm_80";
  EXPECT_NE(key.digest(), other.digest());
  other = key;
  other.compiler = "phobos-other";
  EXPECT_NE(key.digest(), other.digest());
  other = key;
  other.specialized = {{"K", 16}};
  EXPECT_NE(key.digest(), other.digest());
  KernelCacheKey fewer = other;
  fewer.specialized = {{"K", 8}};
  EXPECT_NE(fewer.digest(), other.digest());
  other = key;
  other.places = "0123abcd";
  EXPECT_NE(key.digest(), other.digest());
  KernelCacheKey plain = other;
  plain.lineInfo = false;
  EXPECT_NE(plain.digest(), other.digest());
  // What phobos._cache.key_digest computes for the same fields (a general
  // kernel: no specialisation, so no `aligned` line; no places, so no
  // `places` line; line info, so no `lineinfo 0` line).
  EXPECT_EQ(key.digest(),
            "94e9e44832d84714f241a1a22d8369aa9a6ae07c8d90a214ff2c2855694d510f");
}

TEST(KernelCacheTest, StoreThenLookup) {
  TempDir dir;
  KernelCache cache(std::string(dir.path));
  KernelCacheKey key = sampleKey();
  EXPECT_FALSE(cache.lookup(key.digest()));
  llvm::Expected<KernelCacheEntry> stored =
      cache.store(key, sampleContract(), llvm::StringRef("PTX"), llvm::StringRef("\x7f" "ELF\0x", 6));
  ASSERT_TRUE(bool(stored)) << llvm::toString(stored.takeError());
  EXPECT_EQ(stored->directory, cache.entryDirectory(key.digest()));
  std::optional<KernelCacheEntry> found = cache.lookup(key.digest());
  ASSERT_TRUE(found);
  EXPECT_EQ(*found->ptx, "PTX");
  EXPECT_EQ(found->cubin->size(), 6u);
  const llvm::json::Object *contract = found->contract.getAsObject();
  ASSERT_TRUE(contract);
  EXPECT_EQ(contract->getString("chip"), "sm_90");
  EXPECT_EQ(contract->getObject("files")->getString("ptx"), "kernel.ptx");
}

TEST(KernelCacheTest, DamagedEntriesAreRemoved) {
  TempDir dir;
  KernelCache cache(std::string(dir.path));
  KernelCacheKey key = sampleKey();
  ASSERT_TRUE(bool(cache.store(key, sampleContract(), llvm::StringRef("PTX text"), std::nullopt)));
  std::string ptxPath = cache.entryDirectory(key.digest()) + "/kernel.ptx";
  {
    std::error_code error;
    llvm::raw_fd_ostream os(ptxPath, error);
    os << "PTX tent"; // same size, different bytes
  }
  std::string damage;
  EXPECT_FALSE(cache.lookup(key.digest(), &damage));
  EXPECT_NE(damage.find("'kernel.ptx' does not match its digest"), std::string::npos) << damage;
  EXPECT_FALSE(llvm::sys::fs::exists(cache.entryDirectory(key.digest())));
  // Rebuilt, it reads back.
  ASSERT_TRUE(bool(cache.store(key, sampleContract(), llvm::StringRef("PTX text"), std::nullopt)));
  EXPECT_TRUE(cache.lookup(key.digest()));
}

TEST(KernelCacheTest, DeeplyNestedManifestIsADamagedEntry) {
  TempDir dir;
  KernelCache cache(std::string(dir.path));
  KernelCacheKey key = sampleKey();
  ASSERT_TRUE(bool(cache.store(key, sampleContract(), llvm::StringRef("PTX"), std::nullopt)));
  {
    std::error_code error;
    llvm::raw_fd_ostream os(cache.entryDirectory(key.digest()) + "/manifest.json", error);
    os << std::string(1 << 20, '['); // overflowed the parser's stack
  }
  std::string damage;
  EXPECT_FALSE(cache.lookup(key.digest(), &damage));
  EXPECT_NE(damage.find("manifest.json is not JSON (line 1, column 257: JSON "
                        "nested deeper than 256 levels)"),
            std::string::npos)
      << damage;
  EXPECT_FALSE(llvm::sys::fs::exists(cache.entryDirectory(key.digest())));
  ASSERT_TRUE(bool(cache.store(key, sampleContract(), llvm::StringRef("PTX"), std::nullopt)));
  EXPECT_TRUE(cache.lookup(key.digest()));
}

TEST(KernelCacheTest, AFifoInAnEntryIsADamagedEntry) {
  TempDir dir;
  KernelCache cache(std::string(dir.path));
  KernelCacheKey key = sampleKey();
  ASSERT_TRUE(bool(cache.store(key, sampleContract(), llvm::StringRef("PTX"), std::nullopt)));
  std::string manifest = cache.entryDirectory(key.digest()) + "/manifest.json";
  ASSERT_FALSE(llvm::sys::fs::remove(manifest));
  ASSERT_EQ(::mkfifo(manifest.c_str(), 0600), 0); // reading it would block
  std::string damage;
  EXPECT_FALSE(cache.lookup(key.digest(), &damage));
  EXPECT_NE(damage.find("no manifest.json"), std::string::npos) << damage;
  EXPECT_FALSE(llvm::sys::fs::exists(cache.entryDirectory(key.digest())));
}

TEST(KernelCacheTest, RacingWritersAgree) {
  TempDir dir;
  KernelCache cache(std::string(dir.path));
  KernelCacheKey key = sampleKey();
  std::vector<std::thread> threads;
  std::atomic<int> stored{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      llvm::Expected<KernelCacheEntry> entry =
          cache.store(key, sampleContract(), llvm::StringRef("PTX"), std::nullopt);
      if (entry && entry->ptx == std::optional<std::string>("PTX"))
        ++stored;
      else if (!entry)
        llvm::consumeError(entry.takeError());
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(stored, 8);
  std::error_code error;
  int staged = 0;
  for (llvm::sys::fs::directory_iterator it(std::string(dir.path) + "/v1/tmp", error), end;
       it != end && !error; it.increment(error))
    ++staged;
  EXPECT_EQ(staged, 0);
}

TEST(KernelCacheTest, VersionIsAHashOfTheSources) {
  EXPECT_TRUE(compilerVersion().starts_with("phobos-"));
  EXPECT_NE(compilerVersion().find("-llvm22"), llvm::StringRef::npos);
}

} // namespace
