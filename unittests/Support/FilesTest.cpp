//===- FilesTest.cpp - Reading input files that end -----------------------===//

#include "Phobos/Support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sys/stat.h>

using namespace phobos;

namespace {

std::string errorOf(const llvm::Twine &path, uint64_t maxBytes) {
  auto buffer = readRegularFile(path, maxBytes);
  return buffer ? std::string() : llvm::toString(buffer.takeError());
}

TEST(FilesTest, ReadsRegularFilesWithinTheLimit) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("phobos-files", "txt", path));
  {
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    os << "twelve bytes";
  }
  auto buffer = readRegularFile(path, 12);
  ASSERT_TRUE(bool(buffer));
  EXPECT_EQ((*buffer)->getBuffer(), "twelve bytes");
  EXPECT_EQ(errorOf(path, 11), "cannot read '" + path.str().str() +
                                   "': it is 12 bytes, more than the 11 this "
                                   "input may be");
  llvm::sys::fs::remove(path);
}

TEST(FilesTest, RefusesWhatWouldBlockOrNeverEnd) {
  EXPECT_EQ(errorOf("/dev/zero", 1 << 20),
            "cannot read '/dev/zero': not a regular file (a FIFO, a device or "
            "a socket would block or never end)");
  llvm::SmallString<128> directory;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phobos-files", directory));
  std::string fifo = (directory + "/fifo").str();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(errorOf(fifo, 1 << 20).find("not a regular file"), std::string::npos);
  EXPECT_EQ(errorOf(directory, 1 << 20),
            "cannot read '" + directory.str().str() + "': it is a directory");
  EXPECT_NE(errorOf(directory + "/missing", 1 << 20).find("No such file"),
            std::string::npos);
  llvm::sys::fs::remove_directories(directory);
}

} // namespace
