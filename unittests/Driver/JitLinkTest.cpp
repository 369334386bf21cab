//===- JitLinkTest.cpp - PTX to cubin through nvJitLink -------------------===//
//
// Where libnvJitLink is installed (the CUDA toolkit here, the GPU machine),
// it assembles PTX into an ELF cubin in the process and reports bad PTX
// with its log; elsewhere the tests are skipped (the tuner then starts
// ptxas).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Driver/JitLink.h"

#include "Phobos/Driver/Compiler.h"

#include <gtest/gtest.h>

using namespace phobos;

namespace {

constexpr const char *kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry copy(.param .u64 out, .param .u64 in)
{
  .reg .b64 %rd<5>;
  .reg .f32 %f<2>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  ld.global.f32 %f1, [%rd4];
  st.global.f32 [%rd3], %f1;
  ret;
}
)";

TEST(JitLinkTest, AssemblesPtxIntoACubin) {
  std::string why;
  std::unique_ptr<JitLinker> linker = JitLinker::open(&why);
  if (!linker)
    GTEST_SKIP() << why;
  llvm::Expected<std::string> cubin = linker->assemble(kPtx, "sm_90a");
  ASSERT_TRUE(static_cast<bool>(cubin)) << llvm::toString(cubin.takeError());
  ASSERT_GT(cubin->size(), 4u);
  EXPECT_EQ(cubin->substr(0, 4), std::string("\x7f"
                                             "ELF"));
  // The entry point's name is in the cubin's string table.
  EXPECT_NE(cubin->find("copy"), std::string::npos);
}

TEST(JitLinkTest, ReportsRegistersAndSpillsAsPtxasDoes) {
  std::unique_ptr<JitLinker> linker = JitLinker::open();
  if (!linker)
    GTEST_SKIP() << "libnvJitLink not found";
  AssemblyReport report;
  llvm::Expected<std::string> cubin = linker->assemble(kPtx, "sm_90a", &report);
  ASSERT_TRUE(static_cast<bool>(cubin)) << llvm::toString(cubin.takeError());
  EXPECT_GT(report.registers, 0);
  EXPECT_EQ(report.spillStoreBytes, 0);
  EXPECT_EQ(report.spillLoadBytes, 0);
}

TEST(JitLinkTest, ReportsBadPtxWithItsLog) {
  std::unique_ptr<JitLinker> linker = JitLinker::open();
  if (!linker)
    GTEST_SKIP() << "libnvJitLink not found";
  std::string bad = kPtx;
  bad.replace(bad.find("st.global.f32"), 13, "st.global.q32");
  llvm::Expected<std::string> cubin = linker->assemble(bad, "sm_90a");
  ASSERT_FALSE(static_cast<bool>(cubin));
  std::string message = llvm::toString(cubin.takeError());
  EXPECT_NE(message.find("nvJitLink failed"), std::string::npos) << message;
}

} // namespace
