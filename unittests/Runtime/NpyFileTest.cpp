//===- NpyFileTest.cpp - Reading .npy files -------------------------------===//

#include "Phobos/Runtime/NpyFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace phobos;

namespace {

TEST(NpyFileTest, RoundTripsWhatWriteNpyWrites) {
  for (ElementType type : {ElementType::F16, ElementType::F32, ElementType::F64,
                           ElementType::I32, ElementType::I64, ElementType::Bool}) {
    HostTensor tensor(type, {3, 5});
    tensor.fillIota();
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("phobos", "npy", path));
    ASSERT_FALSE(bool(tensor.writeNpy(path)));
    llvm::Expected<HostTensor> read = readNpy(path);
    llvm::sys::fs::remove(path);
    ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
    EXPECT_EQ(read->getElementType(), type);
    EXPECT_EQ(read->getShape().vec(), (std::vector<int64_t>{3, 5}));
    for (int64_t i = 0; i < 15; ++i)
      EXPECT_EQ(read->get(i), tensor.get(i));
  }
}

std::string npy(llvm::StringRef header, size_t dataBytes) {
  std::string text = "\x93NUMPY\x01";
  text += '\0';
  text += char(header.size() & 0xff);
  text += char(header.size() >> 8);
  text += header.str();
  text.append(dataBytes, '\0');
  return text;
}

TEST(NpyFileTest, RejectsWhatItCannotRead) {
  auto error = [](llvm::StringRef bytes) {
    llvm::Expected<HostTensor> tensor = parseNpy(bytes);
    return tensor ? std::string() : llvm::toString(tensor.takeError());
  };
  EXPECT_NE(error("not numpy").find("magic"), std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 4))
                .find("element type '<u2'"),
            std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16))
                .find("Fortran order"),
            std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 15))
                .find("the data is 15 bytes"),
            std::string::npos);
  EXPECT_EQ(error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 16)), "");
  // Sizes a header claims are checked against the data before any
  // allocation (2^40 elements aborted with LLVM's out-of-memory).
  EXPECT_EQ(error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", 16)),
            "not a .npy file Phobos reads: the data is 16 bytes but the shape "
            "and type need 4398046511104");
  EXPECT_EQ(error(npy("{'descr': '<f8', 'fortran_order': False, "
                      "'shape': (4294967296, 4294967296), }", 16)),
            "not a .npy file Phobos reads: the shape's size does not fit in 64 bits");
}

TEST(NpyFileTest, RefusesFilesThatAreNotRegular) {
  llvm::Expected<HostTensor> tensor = readNpy("/dev/zero");
  ASSERT_FALSE(bool(tensor));
  EXPECT_EQ(llvm::toString(tensor.takeError()),
            "cannot read '/dev/zero': not a regular file");
}

} // namespace
