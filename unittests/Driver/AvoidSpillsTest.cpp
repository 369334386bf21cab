//===- AvoidSpillsTest.cpp - Assembly retried at one CTA per SM -----------===//
//
// Where ptxas spills under an occupancy request (tile-choose-occupancy's
// `.minnctapersm 2`) or under its own occupancy heuristic, the drivers
// assemble once more with one CTA per SM requested and keep what spills
// less (assembleAvoidingSpills); a kernel whose FMA dots spill is also
// compiled again with rolled K loops. These tests pin the PTX rewrite and
// the choices, with an assembler that stands in for ptxas.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Driver/Compiler.h"

#include "llvm/ADT/Twine.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

using namespace phobos;

namespace {

constexpr const char *kHeader = ".version 8.0\n"
                                ".target sm_90a\n"
                                ".address_size 64\n\n";

/// One entry with `directives` between its parameters and its body.
std::string entry(llvm::StringRef name, llvm::StringRef directives) {
  return (".visible .entry " + name + "(\n" + "\t.param .u64 " + name +
          "_param_0\n)\n" + directives + "{\n\tret;\n}\n")
      .str();
}

TEST(RequestOneCtaPerSM, LowersATwoCtaRequest) {
  std::string ptx =
      kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  std::optional<std::string> relaxed = requestOneCtaPerSM(ptx);
  ASSERT_TRUE(relaxed);
  EXPECT_EQ(*relaxed,
            kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 1\n"));
}

TEST(RequestOneCtaPerSM, AddsARequestAfterTheThreadCount) {
  std::string ptx = kHeader + entry("saxpy", ".reqntid 128, 1, 1\n") + "\n" +
                    entry("copy", ".maxntid 64, 1, 1\n");
  std::optional<std::string> relaxed = requestOneCtaPerSM(ptx);
  ASSERT_TRUE(relaxed);
  EXPECT_EQ(*relaxed,
            kHeader + entry("saxpy", ".reqntid 128, 1, 1\n.minnctapersm 1\n") +
                "\n" + entry("copy", ".maxntid 64, 1, 1\n.minnctapersm 1\n"));
}

TEST(RequestOneCtaPerSM, LeavesWhatCannotChange) {
  // Already one CTA; no thread count to pair a request with; registers
  // fixed by the kernel (warp specialisation's .maxnreg).
  EXPECT_FALSE(requestOneCtaPerSM(
      kHeader + entry("a", ".maxntid 256, 1, 1\n.minnctapersm 1\n")));
  EXPECT_FALSE(requestOneCtaPerSM(kHeader + entry("b", "")));
  EXPECT_FALSE(requestOneCtaPerSM(
      kHeader + entry("c", ".maxntid 384, 1, 1\n.maxnreg 168\n")));
}

/// A stand-in for ptxas: `spillsAtTwo` bytes spilled unless the PTX asks
/// for one CTA per SM, where it spills `spillsAtOne`.
struct FakePtxas {
  int spillsAtTwo, spillsAtOne;
  int calls = 0;
  llvm::Expected<std::string> operator()(llvm::StringRef ptx,
                                         AssemblyReport *report) {
    ++calls;
    bool one = ptx.contains(".minnctapersm 1");
    report->registers = one ? 255 : 128;
    report->spillStoreBytes = report->spillLoadBytes =
        one ? spillsAtOne : spillsAtTwo;
    return std::string(one ? "cubin@1" : "cubin@2");
  }
};

TEST(AssembleAvoidingSpills, RetriesASpillingKernelAtOneCta) {
  std::string ptx =
      kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  FakePtxas ptxas{4, 0};
  AssemblyReport report;
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(ptx, std::ref(ptxas), &report);
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "cubin@1");
  EXPECT_EQ(ptxas.calls, 2);
  EXPECT_EQ(report.registers, 255);
  EXPECT_EQ(report.spilledBytes(), 0);
  // The PTX kept is the one the cubin came from.
  EXPECT_TRUE(llvm::StringRef(ptx).contains(".minnctapersm 1"));
}

TEST(AssembleAvoidingSpills, KeepsTheFirstWhenTheRetryIsNoBetter) {
  std::string ptx =
      kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  std::string original = ptx;
  FakePtxas ptxas{20, 20};
  AssemblyReport report;
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(ptx, std::ref(ptxas), &report);
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "cubin@2");
  EXPECT_EQ(ptxas.calls, 2);
  EXPECT_EQ(report.spilledBytes(), 40);
  EXPECT_EQ(ptx, original);
}

TEST(AssembleAvoidingSpills, AssemblesASpillFreeKernelOnce) {
  std::string ptx =
      kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  FakePtxas ptxas{0, 0};
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(ptx, std::ref(ptxas));
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "cubin@2");
  EXPECT_EQ(ptxas.calls, 1);
}

TEST(AssembleAvoidingSpills, PassesAnAssemblyErrorOn) {
  std::string ptx = kHeader + entry("gemm", ".maxntid 256, 1, 1\n");
  auto failing = [](llvm::StringRef, AssemblyReport *) {
    return llvm::Expected<std::string>(
        llvm::createStringError("ptxas fatal: bad PTX"));
  };
  llvm::Expected<std::string> cubin = assembleAvoidingSpills(ptx, failing);
  ASSERT_FALSE(static_cast<bool>(cubin));
  EXPECT_EQ(llvm::toString(cubin.takeError()), "ptxas fatal: bad PTX");
}

/// A stand-in for ptxas that tells a kernel compiled with rolled FMA K
/// loops (its PTX ends in "// rolled") from the unrolled one.
struct FakeRollingPtxas {
  int unrolledAtTwo, unrolledAtOne, rolledAtTwo, rolledAtOne;
  int calls = 0;
  llvm::Expected<std::string> operator()(llvm::StringRef ptx,
                                         AssemblyReport *report) {
    ++calls;
    bool one = ptx.contains(".minnctapersm 1");
    bool rolled = ptx.ends_with("// rolled\n");
    report->registers = 255;
    report->spillStoreBytes = report->spillLoadBytes =
        rolled ? (one ? rolledAtOne : rolledAtTwo)
               : (one ? unrolledAtOne : unrolledAtTwo);
    return (llvm::Twine(rolled ? "rolled" : "unrolled") + (one ? "@1" : "@2"))
        .str();
  }
};

/// What the drivers pass: the kernel compiled again, its K loops rolled
/// with the steps asked for.
struct FakeRecompile {
  std::string ptx;
  std::vector<int64_t> asked;
  mlir::FailureOr<std::string> operator()(int64_t fmaKUnroll) {
    asked.push_back(fmaKUnroll);
    return ptx + "// rolled\n";
  }
};

TEST(AssembleAvoidingSpills, RollsTheFmaDotsOfASpillingKernel) {
  std::string ptx =
      kHeader + entry("sgemm", ".maxntid 128, 1, 1\n.minnctapersm 2\n");
  FakeRollingPtxas ptxas{236, 236, 0, 0};
  FakeRecompile recompile{ptx, {}};
  AssemblyReport report;
  llvm::Expected<std::string> cubin = assembleAvoidingSpills(
      ptx, std::ref(ptxas), &report, RollingRecompile{32, std::ref(recompile)});
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "rolled@2");
  EXPECT_EQ(recompile.asked, std::vector<int64_t>{kSpillingFmaKUnroll});
  // The rolled kernel does not spill, so the unrolled one is not tried at
  // the other occupancy.
  EXPECT_EQ(ptxas.calls, 2);
  EXPECT_EQ(report.spilledBytes(), 0);
  EXPECT_TRUE(llvm::StringRef(ptx).ends_with("// rolled\n"));
}

TEST(AssembleAvoidingSpills, KeepsTheUnrolledKernelWhenItSpillsLess) {
  // Rolled, it still spills at both occupancies; unrolled at one CTA, it
  // does not: that one is kept, with its PTX.
  std::string ptx =
      kHeader + entry("sgemm", ".maxntid 128, 1, 1\n.minnctapersm 2\n");
  FakeRollingPtxas ptxas{40, 0, 8, 8};
  FakeRecompile recompile{ptx, {}};
  AssemblyReport report;
  llvm::Expected<std::string> cubin = assembleAvoidingSpills(
      ptx, std::ref(ptxas), &report, RollingRecompile{32, std::ref(recompile)});
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "unrolled@1");
  EXPECT_EQ(ptxas.calls, 4);
  EXPECT_EQ(report.spilledBytes(), 0);
  EXPECT_FALSE(llvm::StringRef(ptx).ends_with("// rolled\n"));
  EXPECT_TRUE(llvm::StringRef(ptx).contains(".minnctapersm 1"));
}

TEST(AssembleAvoidingSpills, KeepsTheRolledKernelWhenItSpillsLess) {
  std::string ptx =
      kHeader + entry("attention", ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  FakeRollingPtxas ptxas{448, 448, 316, 316};
  FakeRecompile recompile{ptx, {}};
  AssemblyReport report;
  llvm::Expected<std::string> cubin = assembleAvoidingSpills(
      ptx, std::ref(ptxas), &report, RollingRecompile{64, std::ref(recompile)});
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "rolled@2");
  EXPECT_EQ(report.spilledBytes(), 632);
  EXPECT_TRUE(llvm::StringRef(ptx).ends_with("// rolled\n"));
}

TEST(AssembleAvoidingSpills, RollsOnlyWhereThatChangesTheCode) {
  // No FMA dot longer than a rolled loop's steps (or no FMA dot at all):
  // nothing is compiled again.
  std::string ptx =
      kHeader + entry("hgemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  FakeRollingPtxas ptxas{4, 4, 0, 0};
  FakeRecompile recompile{ptx, {}};
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(ptx, std::ref(ptxas), nullptr,
                             RollingRecompile{kSpillingFmaKUnroll,
                                              std::ref(recompile)});
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "unrolled@2");
  EXPECT_TRUE(recompile.asked.empty());
  EXPECT_EQ(ptxas.calls, 2);
}

} // namespace
