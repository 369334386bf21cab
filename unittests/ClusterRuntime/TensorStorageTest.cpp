//===- TensorStorageTest.cpp - Tensors in file:// storage -----------------===//

#include "Phobos/ClusterRuntime/TensorStorage.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace phobos;
using namespace phobos::storage;

namespace {

class TensorStorageTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phobos-storage", path));
    directory = std::string(path);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }
  std::string file(const std::string &name) { return directory + "/" + name; }

  std::string directory;
};

TensorInfo layout(Format format, ElementType element,
                  std::vector<int64_t> shape) {
  TensorInfo info;
  info.format = format;
  info.element = element;
  info.shape = std::move(shape);
  return info;
}

TEST_F(TensorStorageTest, RawFilesAreJustTheElements) {
  TensorInfo info = layout(Format::Raw, ElementType::F32, {3, 5});
  absl::StatusOr<TensorFile> created = TensorFile::create(file("a"), info);
  ASSERT_TRUE(created.ok()) << created.status();
  std::vector<float> values(15);
  std::iota(values.begin(), values.end(), 0.0f);
  ASSERT_TRUE(created->writeBytes(0, 60, values.data()).ok());
  uint64_t size = 0;
  llvm::sys::fs::file_size(file("a"), size);
  EXPECT_EQ(size, 60u);

  absl::StatusOr<TensorInfo> read =
      inspectFile(file("a"), std::make_pair(ElementType::F32, std::vector<int64_t>{3, 5}));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->format, Format::Raw);
  EXPECT_EQ(read->dataOffset, 0);
  // A raw file says nothing of itself.
  absl::StatusOr<TensorInfo> unknown = inspectFile(file("a"));
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("has no tensor header"),
            std::string::npos);
}

TEST_F(TensorStorageTest, HeadersDescribeEveryTypeAndRank) {
  for (auto [element, shape] :
       std::vector<std::pair<ElementType, std::vector<int64_t>>>{
           {ElementType::F16, {2, 3, 4}},
           {ElementType::BF16, {7}},
           {ElementType::I64, {}},
           {ElementType::Bool, {1, 1, 1, 1, 5}}}) {
    TensorInfo info = layout(Format::Header, element, shape);
    ASSERT_TRUE(TensorFile::create(file("h"), info).ok());
    absl::StatusOr<TensorInfo> read = inspectFile(file("h"));
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->format, Format::Header);
    EXPECT_EQ(read->element, element);
    EXPECT_EQ(read->shape, shape);
    EXPECT_EQ(read->dataOffset % 64, 0);
    EXPECT_EQ(read->dataOffset, static_cast<int64_t>(headerText(element, shape).size()));
  }
}

TEST_F(TensorStorageTest, RegionsRoundTripInEveryRank) {
  for (Format format : {Format::Raw, Format::Header}) {
    std::vector<int64_t> shape = {4, 6, 8};
    TensorInfo info = layout(format, ElementType::F32, shape);
    absl::StatusOr<TensorFile> tensor = TensorFile::create(file("r"), info);
    ASSERT_TRUE(tensor.ok());
    std::vector<float> all(4 * 6 * 8);
    std::iota(all.begin(), all.end(), 0.0f);
    ASSERT_TRUE(tensor->writeBytes(0, all.size() * 4, all.data()).ok());
    // A box inside: [1:3, 2:5, 0:8] (whole innermost axis) and [1:3, 2:5, 3:7].
    for (std::vector<int64_t> extents :
         {std::vector<int64_t>{2, 3, 8}, std::vector<int64_t>{2, 3, 4}}) {
      std::vector<int64_t> offsets = {1, 2, extents[2] == 8 ? 0 : 3};
      std::vector<float> box(extents[0] * extents[1] * extents[2]);
      ASSERT_TRUE(tensor->readRegion(offsets, extents, box.data()).ok());
      size_t k = 0;
      for (int64_t i = 0; i < extents[0]; ++i)
        for (int64_t j = 0; j < extents[1]; ++j)
          for (int64_t l = 0; l < extents[2]; ++l)
            EXPECT_EQ(box[k++], all[((offsets[0] + i) * 6 + offsets[1] + j) * 8 +
                                    offsets[2] + l]);
      // Written back negated, read back whole.
      for (float &value : box)
        value = -value;
      ASSERT_TRUE(tensor->writeRegion(offsets, extents, box.data()).ok());
      std::vector<float> again(all.size());
      ASSERT_TRUE(tensor->readBytes(0, again.size() * 4, again.data()).ok());
      k = 0;
      for (int64_t i = 0; i < extents[0]; ++i)
        for (int64_t j = 0; j < extents[1]; ++j)
          for (int64_t l = 0; l < extents[2]; ++l) {
            size_t at = ((offsets[0] + i) * 6 + offsets[1] + j) * 8 + offsets[2] + l;
            EXPECT_EQ(again[at], box[k++]);
            all[at] = again[at];
          }
    }
    // A box that leaves the tensor is an error, not a write.
    std::vector<float> scratch(64);
    absl::Status outside = tensor->writeRegion({3, 0, 0}, {2, 1, 1}, scratch.data());
    EXPECT_EQ(outside.code(), absl::StatusCode::kOutOfRange);
  }
}

TEST_F(TensorStorageTest, MappedWritesEqualSyscallWrites) {
  // Boxes whose rows start and end inside pages and cross page boundaries
  // (a row is 1500 f32 = 6000 bytes), written by both methods; the header
  // format puts the data at an offset that is not a page multiple.
  for (Format format : {Format::Raw, Format::Header}) {
    TensorInfo info = layout(format, ElementType::F32, {64, 1500});
    ASSERT_TRUE(TensorFile::create(file("s"), info).ok());
    ASSERT_TRUE(TensorFile::create(file("m"), info).ok());
    absl::StatusOr<TensorInfo> read = inspectFile(
        file("s"), std::make_pair(ElementType::F32, std::vector<int64_t>{64, 1500}));
    ASSERT_TRUE(read.ok()) << read.status();
    absl::StatusOr<TensorFile> syscall =
        TensorFile::open(file("s"), *read, true, TensorFile::WriteMethod::Syscall);
    absl::StatusOr<TensorFile> mapped =
        TensorFile::open(file("m"), *read, true, TensorFile::WriteMethod::Mapping);
    ASSERT_TRUE(syscall.ok() && mapped.ok());
    EXPECT_EQ(mapped->writeMethod(), TensorFile::WriteMethod::Mapping);
    float next = 1.0f;
    for (auto [offsets, extents] :
         std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
             {{0, 0}, {1, 1}},       {{3, 7}, {5, 1001}}, {{10, 0}, {20, 1500}},
             {{63, 1499}, {1, 1}},   {{40, 333}, {24, 1}}, {{0, 0}, {0, 5}}}) {
      std::vector<float> box(extents[0] * extents[1]);
      for (float &value : box)
        value = next++;
      absl::Status status = syscall->writeRegion(offsets, extents, box.data());
      ASSERT_TRUE(status.ok()) << status;
      status = mapped->writeRegion(offsets, extents, box.data());
      ASSERT_TRUE(status.ok()) << status;
    }
    std::ifstream a(file("s"), std::ios::binary), b(file("m"), std::ios::binary);
    std::string sBytes((std::istreambuf_iterator<char>(a)), {});
    std::string mBytes((std::istreambuf_iterator<char>(b)), {});
    EXPECT_EQ(sBytes.size(), static_cast<size_t>(read->dataOffset + 64 * 1500 * 4));
    EXPECT_TRUE(sBytes == mBytes);
    // A box that leaves the tensor is an error, not a write, by either.
    std::vector<float> scratch(8);
    EXPECT_EQ(mapped->writeRegion({64, 0}, {1, 1}, scratch.data()).code(),
              absl::StatusCode::kOutOfRange);
  }
}

TEST_F(TensorStorageTest, MappedWritesOfAFileCutShortAreErrors) {
  // Mapped pages past the end of a file fault when touched: the write must
  // see the short file first and say so.
  TensorInfo info = layout(Format::Raw, ElementType::F32, {16, 1024});
  ASSERT_TRUE(TensorFile::create(file("t"), info).ok());
  absl::StatusOr<TensorFile> mapped =
      TensorFile::open(file("t"), info, true, TensorFile::WriteMethod::Mapping);
  ASSERT_TRUE(mapped.ok());
  ASSERT_EQ(::truncate(file("t").c_str(), 10000), 0);
  std::vector<float> rows(2 * 1024, 1.0f);
  absl::Status status = mapped->writeRegion({14, 0}, {2, 1024}, rows.data());
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(std::string(status.message()),
            file("t") + ": the file ends at byte 10000, before the 8192 bytes at "
                        "byte 57344: it was cut short");
}

TEST_F(TensorStorageTest, APageWithoutStorageIsAnErrorNotACrash) {
  // Pages past the end of a file raise SIGBUS when touched, as a full file
  // system does: the copy stops and says so, and the next copy works.
  long page = ::sysconf(_SC_PAGESIZE);
  std::string path = file("short");
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(static_cast<size_t>(page), 'x');
  }
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  void *mapped = ::mmap(nullptr, 3 * page, PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  char *base = static_cast<char *>(mapped);
  std::string data(64, 'y');
  for (int attempt = 0; attempt < 2; ++attempt) {
    EXPECT_FALSE(copyIntoMapping(base, data.data(), {{2 * page + 8, 0, 64}}));
    EXPECT_TRUE(copyIntoMapping(base, data.data(), {{16, 0, 64}}));
  }
  ::munmap(mapped, 3 * page);
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(bytes.size(), static_cast<size_t>(page));
  EXPECT_EQ(bytes.substr(16, 64), data);
}

TEST_F(TensorStorageTest, AutoResolvesToAMethod) {
  TensorInfo info = layout(Format::Raw, ElementType::F32, {4});
  ASSERT_TRUE(TensorFile::create(file("a"), info).ok());
  absl::StatusOr<TensorFile> writable =
      TensorFile::open(file("a"), info, true, TensorFile::WriteMethod::Auto);
  ASSERT_TRUE(writable.ok());
  EXPECT_NE(writable->writeMethod(), TensorFile::WriteMethod::Auto);
  absl::StatusOr<TensorFile> readOnly =
      TensorFile::open(file("a"), info, false, TensorFile::WriteMethod::Auto);
  ASSERT_TRUE(readOnly.ok());
  EXPECT_EQ(readOnly->writeMethod(), TensorFile::WriteMethod::Syscall);
}

TEST_F(TensorStorageTest, TruncatedAndDamagedFilesAreErrors) {
  TensorInfo info = layout(Format::Raw, ElementType::F32, {16, 16});
  ASSERT_TRUE(TensorFile::create(file("t"), info).ok());
  ASSERT_EQ(::truncate(file("t").c_str(), 1000), 0);
  auto expected = std::make_pair(ElementType::F32, std::vector<int64_t>{16, 16});
  absl::StatusOr<TensorInfo> read = inspectFile(file("t"), expected);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(std::string(read.status().message()),
            file("t") + " holds 1000 bytes, but f32 [16x16] (raw) needs 1024: "
                        "the file is truncated or the shape is wrong");
  // Cut after the check: the read of the region says so.
  absl::StatusOr<TensorFile> opened = TensorFile::open(file("t"), info, false);
  ASSERT_TRUE(opened.ok());
  std::vector<float> row(16);
  absl::Status status = opened->readRegion({15, 0}, {1, 16}, row.data());
  EXPECT_EQ(std::string(status.message()),
            file("t") + ": the file ends at byte 1000, before the 64 bytes at "
                        "byte 960: it was cut short");

  EXPECT_EQ(inspectFile(file("missing"), expected).status().code(),
            absl::StatusCode::kNotFound);
  std::ofstream(file("bad")) << "PHOBOS-TENSOR v9 dtype=f32 shape=2\n";
  EXPECT_EQ(inspectFile(file("bad")).status().code(),
            absl::StatusCode::kUnimplemented);
  std::ofstream(file("bad2")) << "PHOBOS-TENSOR v1 dtype=q7 shape=2\n";
  EXPECT_EQ(inspectFile(file("bad2")).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(TensorStorage, UrisAndShapes) {
  EXPECT_EQ(*pathFromUri("file:///tmp/a.tensor"), "/tmp/a.tensor");
  EXPECT_EQ(*pathFromUri("relative/a.tensor"), "relative/a.tensor");
  EXPECT_FALSE(pathFromUri("file://host/a").ok());
  EXPECT_FALSE(pathFromUri("s3://bucket/a").ok());
  EXPECT_EQ(*parseShape("16384x64"), (std::vector<int64_t>{16384, 64}));
  EXPECT_EQ(*parseShape("2,3,4"), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_FALSE(parseShape("4x").ok());
  EXPECT_FALSE(parseShape("-4").ok());
  // A size past 64 bits of bytes, also in a damaged header, is an error,
  // not a wrapped product.
  EXPECT_EQ(parseShape("1073741824x1073741823").value().size(), 2u);
  EXPECT_FALSE(parseShape("1073741824x1073741824").ok());
  EXPECT_FALSE(parseShape("4294967296x4294967296").ok());
  EXPECT_EQ(formatShape({}), "scalar");
}

TEST(TensorStorage, RandomValuesAreExactAndReproducible) {
  double low = 1, high = -1;
  for (uint64_t i = 0; i < 100000; ++i) {
    double value = randomValue(42, i);
    EXPECT_EQ(static_cast<double>(static_cast<float>(value)), value);
    low = std::min(low, value);
    high = std::max(high, value);
    ASSERT_EQ(value, randomValue(42, i));
  }
  EXPECT_GE(low, -1.0);
  EXPECT_LT(high, 1.0);
  EXPECT_LT(low, -0.99);
  EXPECT_GT(high, 0.99);
  EXPECT_NE(randomValue(1, 0), randomValue(2, 0));
}

} // namespace
