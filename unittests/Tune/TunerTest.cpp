//===- TunerTest.cpp - The autotuner's parts that need no GPU -------------===//
//
// The tuning cache (keys, records, damage), the small problem the
// interpreter checks on, and what the report keeps through JSON.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/TuningCache.h"
#include "Phobos/Tune/Tuner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace phobos;
using namespace phobos::tune;

namespace {

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("phobos-tune", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
};

TuningKey sampleKey() {
  TuningKey key;
  key.source = "kernel k(a: tensor<f32>[N]) {\n}\n";
  key.kernel = "k";
  key.chip = "sm_90";
  key.dims = {{"N", 4096}, {"M", 128}};
  key.compiler = "phobos-test";
  return key;
}

llvm::json::Object sampleRecord() {
  return llvm::json::Object{{"variant", llvm::json::Object{{"B", 64}, {"D", 2}}},
                            {"variant_order", llvm::json::Array{"B", "D"}},
                            {"time_ms", 0.5}};
}

TEST(TuningCacheTest, KeyDependsOnEveryFieldButDimOrder) {
  TuningKey key = sampleKey();
  EXPECT_EQ(key.dimsText(), "M=128,N=4096");
  TuningKey reordered = key;
  std::swap(reordered.dims[0], reordered.dims[1]);
  EXPECT_EQ(key.digest(), reordered.digest());
  for (auto change : std::vector<std::function<void(TuningKey &)>>{
           [](TuningKey &k) { k.chip = "sm_80"; },
           [](TuningKey &k) { k.kernel = "other"; },
           [](TuningKey &k) { k.source += " "; },
           [](TuningKey &k) { k.compiler = "phobos-other"; },
           [](TuningKey &k) { k.dims[0].second = 4097; },
           [](TuningKey &k) { k.general = true; }}) {
    TuningKey changed = key;
    change(changed);
    EXPECT_NE(key.digest(), changed.digest());
  }
}

TEST(TuningCacheTest, DigestsAreWhatThePythonPackageComputes) {
  // python/tests/test_cache.py computes the same two digests with
  // phobos._cache.tuning_digest: a default search's key and a general one's.
  TuningKey key = sampleKey();
  EXPECT_EQ(key.digest(),
            "c272c148fecbd5526d34b837904e3329008fcd972a488c11e934611d9797b58e");
  key.general = true;
  EXPECT_EQ(key.digest(),
            "ea8da74d544e71e43e30d8a2d86213ff9c48d383ca2e2d2bd28e21199187d478");
}

TEST(TuningCacheTest, StoresAndFindsTheWinner) {
  TempDir dir;
  TuningCache cache(dir.path.str().str());
  TuningKey key = sampleKey();
  EXPECT_FALSE(cache.lookup(key));
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, sampleRecord())));
  std::optional<llvm::json::Object> record = cache.lookup(key);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->getString("kernel"), llvm::StringRef("k"));
  auto variant = TuningCache::variantOf(*record);
  ASSERT_TRUE(variant);
  std::vector<std::pair<std::string, int64_t>> expected = {{"B", 64}, {"D", 2}};
  EXPECT_EQ(*variant, expected);
  // Another shape has no answer.
  TuningKey other = key;
  other.dims[1].second = 8192;
  EXPECT_FALSE(cache.lookup(other));
}

TEST(TuningCacheTest, DamagedRecordIsRemovedAndSearchedAgain) {
  TempDir dir;
  TuningCache cache(dir.path.str().str());
  TuningKey key = sampleKey();
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, sampleRecord())));
  std::string path = cache.recordPath(key.digest());
  {
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    ASSERT_FALSE(error);
    os << "{\"variant\": ";
  }
  EXPECT_FALSE(cache.lookup(key));
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}

TEST(TuningCacheTest, DeepOrMisshapenRecordIsRemovedAndSearchedAgain) {
  TempDir dir;
  TuningCache cache(dir.path.str().str());
  TuningKey key = sampleKey();
  std::string path = cache.recordPath(key.digest());
  for (std::string damage : {std::string(1 << 20, '{'), std::string("[1, 2]"),
                             std::string(R"({"key": "x"})")}) {
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, sampleRecord())));
    {
      std::error_code error;
      llvm::raw_fd_ostream os(path, error);
      ASSERT_FALSE(error);
      os << damage;
    }
    EXPECT_FALSE(cache.lookup(key)) << damage.substr(0, 20);
    EXPECT_FALSE(llvm::sys::fs::exists(path)) << damage.substr(0, 20);
  }
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, sampleRecord())));
  EXPECT_TRUE(cache.lookup(key));
}

TEST(TuningCacheTest, RecordOfAnotherKeyIsNotUsed) {
  TempDir dir;
  TuningCache cache(dir.path.str().str());
  TuningKey key = sampleKey(), other = sampleKey();
  other.kernel = "other";
  ASSERT_FALSE(llvm::errorToBool(cache.store(other, sampleRecord())));
  // The other key's record, copied to this key's place.
  std::string from = cache.recordPath(other.digest());
  std::string to = cache.recordPath(key.digest());
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(to));
  ASSERT_FALSE(llvm::sys::fs::copy_file(from, to));
  EXPECT_FALSE(cache.lookup(key));
}

TEST(SmallCheckDimsTest, HalvesTheLargestDimsKeepingMultiples) {
  llvm::StringMap<int64_t> dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  std::vector<std::vector<std::string>> tensors = {{"M", "K"}, {"K", "N"}, {"M", "N"}};
  llvm::StringMap<int64_t> multiples = {{"M", 128}};
  llvm::StringMap<int64_t> small = smallCheckDims(dims, tensors, multiples);
  for (const std::vector<std::string> &names : tensors) {
    int64_t elements = 1;
    for (const std::string &name : names)
      elements *= small.lookup(name);
    EXPECT_LE(elements, int64_t(1) << 17);
  }
  EXPECT_EQ(small.lookup("M") % 128, 0);
  EXPECT_GE(small.lookup("M"), 128);
}

TEST(SmallCheckDimsTest, SmallProblemsStayAsTheyAre) {
  llvm::StringMap<int64_t> dims = {{"N", 1000}};
  EXPECT_EQ(smallCheckDims(dims, {{"N"}}, {}), dims);
}

TEST(SmallCheckDimsTest, StaticExtentsAreNeverHalved) {
  // D = 64 is a static extent (its multiple is itself).
  llvm::StringMap<int64_t> dims = {{"BH", 64}, {"N", 4096}, {"D", 64}};
  llvm::StringMap<int64_t> small =
      smallCheckDims(dims, {{"BH", "N", "D"}}, {{"D", 64}});
  EXPECT_EQ(small.lookup("D"), 64);
  EXPECT_LE(small.lookup("BH") * small.lookup("N") * 64, int64_t(1) << 17);
}

Report sampleReport() {
  Report report;
  report.kernel = "k";
  report.chip = "sm_90";
  report.checkedWith = "the interpreter on N=64";
  report.dims["N"] = 4096;
  report.variantOrder = {"B"};
  for (auto [value, status, time] :
       std::vector<std::tuple<int64_t, VariantResult::Status, double>>{
           {64, VariantResult::Status::Ok, 0.25},
           {128, VariantResult::Status::Ok, 0.5},
           {256, VariantResult::Status::Wrong, -1},
           {512, VariantResult::Status::Pruned, -1}}) {
    VariantResult result;
    result.variant = {{"B", value}};
    result.status = status;
    result.timeMs = time;
    if (status != VariantResult::Status::Ok)
      result.reason = status == VariantResult::Status::Wrong
                          ? "'y' max rel err 1.00e+00 > 1e-05"
                          : "breaks @aligned(N = 512): N is 4096";
    report.results.push_back(result);
  }
  report.best = 0;
  return report;
}

TEST(ReportTest, TableNamesEveryVariantTheBestAndWhyOthersWereDropped) {
  std::string text;
  llvm::raw_string_ostream os(text);
  sampleReport().printTable(os);
  EXPECT_NE(text.find("B=64"), std::string::npos) << text;
  EXPECT_NE(text.find("best"), std::string::npos) << text;
  EXPECT_NE(text.find("2.00x"), std::string::npos) << text;
  EXPECT_NE(text.find("max rel err 1.00e+00"), std::string::npos) << text;
  EXPECT_NE(text.find("breaks @aligned(N = 512)"), std::string::npos) << text;
}

TEST(ReportTest, JSONKeepsWhatTheCacheNeeds) {
  Report report = sampleReport();
  llvm::Expected<Report> back = Report::fromJSON(report.toJSON());
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->best, 0);
  ASSERT_EQ(back->results.size(), 4u);
  EXPECT_EQ(back->results[1].variant, report.results[1].variant);
  EXPECT_EQ(back->results[1].timeMs, 0.5);
  EXPECT_EQ(back->results[2].status, VariantResult::Status::Wrong);
  EXPECT_EQ(back->results[3].reason, report.results[3].reason);
  EXPECT_EQ(back->dims.lookup("N"), 4096);
  EXPECT_FALSE(bool(Report::fromJSON(llvm::json::Object{})));
}

} // namespace
