//===- AvoidSpillsTest.cpp - Assembly retried at one CTA per SM -----------===//
//
// Where ptxas spills under an occupancy request (tile-choose-occupancy's
// `.minnctapersm 2`) or under its own occupancy heuristic, the drivers
// assemble once more with one CTA per SM requested and keep what spills
// less (assembleAvoidingSpills); a kernel that spills is also compiled
// again lighter on registers (rolled FMA K loops, no dot in flight). These
// tests pin the PTX rewrite and the choices, with an assembler that stands
// in for ptxas.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Driver/Compiler.h"

#include "llvm/ADT/Twine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
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
/// A kernel whose PTX is `ptx`.
CompiledKernel kernelOf(std::string ptx) {
  CompiledKernel kernel;
  kernel.chip = "sm_90a";
  kernel.ptx = std::move(ptx);
  return kernel;
}

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

/// Assembles `kernel` with `ptxas` and expects the cubin of its PTX at one
/// CTA per SM ("cubin@1"), without spills, at `registers`.
template <typename Ptxas>
void expectAssembledAtOneCta(CompiledKernel &kernel, Ptxas &ptxas,
                             int registers) {
  AssemblyReport report;
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(kernel, std::ref(ptxas), &report);
  ASSERT_TRUE(static_cast<bool>(cubin)) << llvm::toString(cubin.takeError());
  EXPECT_EQ(*cubin, "cubin@1");
  EXPECT_EQ(report.registers, registers);
  EXPECT_EQ(report.spilledBytes(), 0);
  // The PTX kept is the one the cubin came from.
  EXPECT_TRUE(llvm::StringRef(kernel.ptx).contains(".minnctapersm 1"));
}

TEST(AssembleAvoidingSpills, RetriesASpillingKernelAtOneCta) {
  CompiledKernel kernel = kernelOf(
      kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n"));
  FakePtxas ptxas{4, 0};
  expectAssembledAtOneCta(kernel, ptxas, 255);
  EXPECT_EQ(ptxas.calls, 2);
}

TEST(AssembleAvoidingSpills, KeepsTheFirstWhenTheRetryIsNoBetter) {
  CompiledKernel kernel = kernelOf(
      kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n"));
  std::string original = kernel.ptx;
  FakePtxas ptxas{20, 20};
  AssemblyReport report;
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(kernel, std::ref(ptxas), &report);
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "cubin@2");
  EXPECT_EQ(ptxas.calls, 2);
  EXPECT_EQ(report.spilledBytes(), 40);
  EXPECT_EQ(kernel.ptx, original);
}

TEST(AssembleAvoidingSpills, AssemblesASpillFreeKernelOnce) {
  CompiledKernel kernel = kernelOf(
      kHeader + entry("gemm", ".maxntid 256, 1, 1\n.minnctapersm 2\n"));
  FakePtxas ptxas{0, 0};
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(kernel, std::ref(ptxas));
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "cubin@2");
  EXPECT_EQ(ptxas.calls, 1);
}

/// A warp-specialised entry whose consumers ask for `registers`.
std::string specialised(int registers) {
  return kHeader + entry("attention", ".maxntid 384, 1, 1\n.minnctapersm 1\n") +
         "// roles\n\tsetmaxnreg.dec.sync.aligned.u32 \t40;\n"
         "\tsetmaxnreg.inc.sync.aligned.u32 \t" +
         std::to_string(registers) + ";\n";
}

TEST(ConsumerRegisters, ReadsAndRewritesTheConsumersRequest) {
  EXPECT_EQ(consumerRegisters(specialised(232)), 232);
  EXPECT_FALSE(consumerRegisters(kHeader + entry("gemm", ".maxntid 256, 1, 1\n")));
  std::optional<std::string> lowered = withConsumerRegisters(specialised(232), 200);
  ASSERT_TRUE(lowered);
  EXPECT_EQ(consumerRegisters(*lowered), 200);
  // The producer's request stays.
  EXPECT_TRUE(llvm::StringRef(*lowered).contains("setmaxnreg.dec.sync.aligned.u32 \t40;"));
  EXPECT_FALSE(withConsumerRegisters(specialised(232), 204));
  EXPECT_FALSE(withConsumerRegisters(specialised(232), 16));
  EXPECT_FALSE(withConsumerRegisters(kHeader + entry("gemm", ""), 200));
}

/// A stand-in for ptxas that spills `spills[r]` bytes when the consumers ask
/// for r registers (none where r is not listed), recording what was asked.
struct FakeRegisterPtxas {
  std::map<int, int> spills;
  std::vector<int> asked;
  llvm::Expected<std::string> operator()(llvm::StringRef ptx,
                                         AssemblyReport *report) {
    int registers = consumerRegisters(ptx).value_or(-1);
    asked.push_back(registers);
    auto found = spills.find(registers);
    report->spillStoreBytes = report->spillLoadBytes =
        found == spills.end() ? 0 : found->second;
    return "cubin@" + std::to_string(registers);
  }
};

TEST(AssembleAvoidingSpills, GivesWarpSpecialisedConsumersFewerRegisters) {
  // Not monotonic, as ptxas: 224 spills more than 232, 216 none.
  CompiledKernel kernel = kernelOf(specialised(232));
  FakeRegisterPtxas ptxas{{{232, 32}, {224, 40}}, {}};
  AssemblyReport report;
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(kernel, std::ref(ptxas), &report);
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "cubin@216");
  EXPECT_EQ(ptxas.asked, (std::vector<int>{232, 224, 216}));
  EXPECT_EQ(report.spilledBytes(), 0);
  EXPECT_EQ(consumerRegisters(kernel.ptx), 216);
  // Where every count tried spills, the kernel stays as it was, and only
  // kConsumerRegisterSteps counts are tried.
  CompiledKernel stuck = kernelOf(specialised(232));
  std::string original = stuck.ptx;
  FakeRegisterPtxas always{{{232, 8}, {224, 8}, {216, 8}, {208, 8}, {200, 8},
                            {192, 8}, {184, 8}, {176, 8}},
                           {}};
  cubin = assembleAvoidingSpills(stuck, std::ref(always), &report);
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "cubin@232");
  EXPECT_EQ(always.asked.size(), 1u + kConsumerRegisterSteps);
  EXPECT_EQ(stuck.ptx, original);
  EXPECT_EQ(report.spilledBytes(), 16);
}

TEST(AssembleAvoidingSpills, PassesAnAssemblyErrorOn) {
  CompiledKernel kernel =
      kernelOf(kHeader + entry("gemm", ".maxntid 256, 1, 1\n"));
  auto failing = [](llvm::StringRef, AssemblyReport *) {
    return llvm::Expected<std::string>(
        llvm::createStringError("ptxas fatal: bad PTX"));
  };
  llvm::Expected<std::string> cubin = assembleAvoidingSpills(kernel, failing);
  ASSERT_FALSE(static_cast<bool>(cubin));
  EXPECT_EQ(llvm::toString(cubin.takeError()), "ptxas fatal: bad PTX");
}

/// A stand-in for ptxas that refuses, as ptxas's C7602 does, an
/// instruction needing more registers than two CTAs per SM leave, and
/// assembles the kernel at one CTA per SM (or never, with `never`).
struct ShortOfRegistersPtxas {
  bool never = false;
  int calls = 0;
  llvm::Expected<std::string> operator()(llvm::StringRef ptx,
                                         AssemblyReport *report) {
    ++calls;
    if (never || !ptx.contains(".minnctapersm 1"))
      return llvm::createStringError(
          "ptxas failed (255): ptxas fatal   : (C7602) Insufficient registers "
          "(80) to compile instruction at line 674 in function attention.");
    report->registers = 168;
    report->spillStoreBytes = report->spillLoadBytes = 0;
    return std::string("cubin@1");
  }
};

TEST(AssembleAvoidingSpills, TakesARegisterShortageForASpill) {
  CompiledKernel kernel = kernelOf(
      kHeader + entry("attention", ".maxntid 384, 1, 1\n.minnctapersm 2\n"));
  ShortOfRegistersPtxas ptxas;
  expectAssembledAtOneCta(kernel, ptxas, 168);
}

TEST(AssembleAvoidingSpills, GivesBackTheShortageWhenNothingAssembles) {
  CompiledKernel kernel = kernelOf(
      kHeader + entry("attention", ".maxntid 384, 1, 1\n.minnctapersm 2\n"));
  ShortOfRegistersPtxas ptxas{/*never=*/true};
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(kernel, std::ref(ptxas));
  ASSERT_FALSE(static_cast<bool>(cubin));
  EXPECT_NE(llvm::toString(cubin.takeError()).find("(C7602) Insufficient registers"),
            std::string::npos);
  EXPECT_EQ(ptxas.calls, 2);
}

/// How a kernel was compiled, from the mark FakeRecompile leaves at the
/// end of its PTX: "as is", or its reliefs joined by "+": "rolled" (FMA K
/// loops), "tight" (rolled with kTightFmaKUnroll steps), "sync" (no dot in
/// flight), "async" (asynchronous staging), "lean" (lean addresses).
std::string reliefOf(llvm::StringRef ptx) {
  llvm::StringRef last = ptx.rtrim().rsplit('\n').second;
  if (!last.consume_front("// "))
    return "as is";
  return last.str();
}

/// A stand-in for ptxas that spills what `spills` gives for the kernel's
/// relief (reliefOf) at two CTAs per SM, and `atOne` of that at one.
struct FakeReliefPtxas {
  std::map<std::string, std::pair<int, int>> spills;
  int calls = 0;
  llvm::Expected<std::string> operator()(llvm::StringRef ptx,
                                         AssemblyReport *report) {
    ++calls;
    bool one = ptx.contains(".minnctapersm 1");
    std::string relief = reliefOf(ptx);
    std::pair<int, int> bytes = spills.at(relief);
    report->registers = 255;
    report->spillStoreBytes = report->spillLoadBytes =
        one ? bytes.second : bytes.first;
    return (llvm::Twine(relief) + (one ? "@1" : "@2")).str();
  }
};

/// What the drivers pass: the kernel compiled again with a relief, marked
/// at the end of its PTX. A synchronous kernel takes fewer pipeline stages
/// (less shared memory, in its contract).
struct FakeRecompile {
  std::string ptx;
  std::vector<std::string> asked;
  mlir::FailureOr<CompiledKernel> operator()(SpillRelief relief) {
    std::vector<std::string> parts;
    if (relief.fmaKUnroll > 0) {
      EXPECT_TRUE(relief.fmaKUnroll == kSpillingFmaKUnroll ||
                  relief.fmaKUnroll == kTightFmaKUnroll);
      parts.push_back(relief.fmaKUnroll == kTightFmaKUnroll ? "tight"
                                                            : "rolled");
    }
    if (relief.synchronousDots)
      parts.push_back("sync");
    if (relief.asyncStaging)
      parts.push_back("async");
    if (relief.leanAddresses)
      parts.push_back("lean");
    std::string mark;
    for (const std::string &part : parts)
      mark += (mark.empty() ? "" : "+") + part;
    asked.push_back(mark);
    CompiledKernel kernel = kernelOf(ptx + "// " + mark + "\n");
    kernel.contract.sharedMemoryBytes = relief.synchronousDots ? 98304 : 131072;
    return kernel;
  }
};

/// A kernel as the pipeline leaves it: 128 KiB of shared memory.
CompiledKernel spillingKernel(llvm::StringRef name, int64_t fmaKSteps) {
  CompiledKernel kernel =
      kernelOf(kHeader + entry(name, ".maxntid 128, 1, 1\n.minnctapersm 2\n"));
  kernel.fmaKSteps = fmaKSteps;
  kernel.contract.sharedMemoryBytes = 131072;
  return kernel;
}

/// What assembleAvoidingSpills left for a kernel whose reliefs are
/// compiled by FakeRecompile: the cubin, the reliefs asked for, the report
/// and the number of ptxas calls.
struct Relieved {
  std::string cubin;
  std::vector<std::string> asked;
  AssemblyReport report;
  int calls = 0;
};

Relieved relieve(CompiledKernel &kernel, FakeReliefPtxas ptxas,
                 SpillRelief available) {
  FakeRecompile recompile{kernel.ptx, {}};
  Relieved relieved;
  llvm::Expected<std::string> cubin =
      assembleAvoidingSpills(kernel, std::ref(ptxas), &relieved.report,
                             SpillRecompile{available, std::ref(recompile)});
  if (cubin)
    relieved.cubin = *cubin;
  else
    ADD_FAILURE() << llvm::toString(cubin.takeError());
  relieved.asked = recompile.asked;
  relieved.calls = ptxas.calls;
  return relieved;
}

TEST(AssembleAvoidingSpills, RollsTheFmaDotsOfASpillingKernel) {
  CompiledKernel kernel = spillingKernel("sgemm", 32);
  FakeReliefPtxas ptxas{{{"as is", {236, 236}}, {"rolled", {0, 0}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{kSpillingFmaKUnroll});
  EXPECT_EQ(relieved.cubin, "rolled@2");
  EXPECT_EQ(relieved.asked, std::vector<std::string>{"rolled"});
  // The rolled kernel does not spill, so the unrolled one is not tried at
  // the other occupancy.
  EXPECT_EQ(relieved.calls, 2);
  EXPECT_EQ(relieved.report.spilledBytes(), 0);
  EXPECT_EQ(reliefOf(kernel.ptx), "rolled");
}

TEST(AssembleAvoidingSpills, KeepsTheUnrolledKernelWhenItSpillsLess) {
  // Rolled, it still spills at both occupancies; unrolled at one CTA, it
  // does not: that one is kept, with its PTX, and nothing more is tried.
  CompiledKernel kernel = spillingKernel("sgemm", 32);
  FakeReliefPtxas ptxas{{{"as is", {40, 0}}, {"rolled", {8, 8}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{kSpillingFmaKUnroll});
  EXPECT_EQ(relieved.cubin, "as is@1");
  EXPECT_EQ(relieved.calls, 4);
  EXPECT_EQ(relieved.report.spilledBytes(), 0);
  EXPECT_EQ(reliefOf(kernel.ptx), "as is");
  EXPECT_TRUE(llvm::StringRef(kernel.ptx).contains(".minnctapersm 1"));
}

TEST(AssembleAvoidingSpills, KeepsTheRolledKernelWhenItSpillsLess) {
  CompiledKernel kernel = spillingKernel("attention", 64);
  FakeReliefPtxas ptxas{
      {{"as is", {448, 448}}, {"rolled", {316, 316}}, {"tight", {400, 400}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{kSpillingFmaKUnroll});
  EXPECT_EQ(relieved.cubin, "rolled@2");
  EXPECT_EQ(relieved.asked, (std::vector<std::string>{"rolled", "tight"}));
  EXPECT_EQ(relieved.report.spilledBytes(), 632);
  EXPECT_EQ(reliefOf(kernel.ptx), "rolled");
}

TEST(AssembleAvoidingSpills, RelievesOnlyWhereThatChangesTheCode) {
  // No FMA dot longer than a rolled loop's steps (or no FMA dot at all),
  // no dot in flight: nothing is compiled again.
  CompiledKernel kernel = spillingKernel("hgemm", kSpillingFmaKUnroll);
  FakeReliefPtxas ptxas{{{"as is", {4, 4}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{});
  EXPECT_EQ(relieved.cubin, "as is@2");
  EXPECT_TRUE(relieved.asked.empty());
  EXPECT_EQ(relieved.calls, 2);
}

TEST(AssembleAvoidingSpills, KeepsNoDotInFlightWhereThatStopsTheSpills) {
  // A wgmma GEMM whose dots stay in flight across iterations spills at
  // either occupancy; with every dot synchronous it does not. Its contract
  // is the synchronous kernel's (fewer stages of shared memory).
  CompiledKernel kernel = spillingKernel("sgemm_tc", 0);
  kernel.dotsInFlight = true;
  FakeReliefPtxas ptxas{{{"as is", {352, 352}}, {"sync", {0, 0}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{0, true});
  EXPECT_EQ(relieved.cubin, "sync@2");
  EXPECT_EQ(relieved.asked, std::vector<std::string>{"sync"});
  EXPECT_EQ(relieved.report.spilledBytes(), 0);
  EXPECT_EQ(reliefOf(kernel.ptx), "sync");
  EXPECT_EQ(kernel.contract.sharedMemoryBytes, 98304);
}

TEST(AssembleAvoidingSpills, GivesARelievedKernelFewerConsumerRegisters) {
  // Tutorial 06's forward at D 128, V sliced after the softmax: as it is
  // it spills at every consumer register count; staged asynchronously it
  // fits at 208, so it keeps its dots in flight rather than lose them.
  CompiledKernel kernel = kernelOf(specialised(232));
  kernel.dotsInFlight = true;
  kernel.registerStaging = true;
  FakeRecompile recompile{kernel.ptx, {}};
  std::vector<std::string> asked;
  auto ptxas = [&](llvm::StringRef ptx, AssemblyReport *report)
      -> llvm::Expected<std::string> {
    int registers = consumerRegisters(ptx).value_or(-1);
    std::string relief = reliefOf(ptx);
    asked.push_back(relief + "@" + std::to_string(registers));
    bool fits = relief == "sync" || (relief == "async" && registers <= 208);
    report->spillStoreBytes = report->spillLoadBytes = fits ? 0 : 24;
    return asked.back();
  };
  SpillRelief available;
  available.synchronousDots = true;
  available.asyncStaging = true;
  AssemblyReport report;
  llvm::Expected<std::string> cubin = assembleAvoidingSpills(
      kernel, ptxas, &report, SpillRecompile{available, std::ref(recompile)});
  ASSERT_TRUE(static_cast<bool>(cubin));
  EXPECT_EQ(*cubin, "async@208");
  EXPECT_EQ(recompile.asked, std::vector<std::string>{"async"});
  EXPECT_EQ(report.spilledBytes(), 0);
  EXPECT_EQ(reliefOf(kernel.ptx), "async");
  EXPECT_EQ(consumerRegisters(kernel.ptx), 208);
  // The kernel as it is tried every count first.
  EXPECT_EQ(asked.front(), "as is@232");
  EXPECT_EQ(std::count(asked.begin(), asked.end(), "as is@184"), 1);
}

TEST(AssembleAvoidingSpills, TriesTheReliefsInTurnAndKeepsTheLeastSpilling) {
  // Rolled first; where that still spills, rolled and synchronous, then
  // that with tighter loops. None reaches 0: the one that spills least is
  // kept (the first on a tie).
  CompiledKernel kernel = spillingKernel("attention", 64);
  kernel.dotsInFlight = true;
  FakeReliefPtxas ptxas{{{"as is", {300, 300}},
                         {"rolled", {40, 40}},
                         {"rolled+sync", {40, 12}},
                         {"tight+sync", {40, 16}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{kSpillingFmaKUnroll, true});
  EXPECT_EQ(relieved.asked,
            (std::vector<std::string>{"rolled", "rolled+sync", "tight+sync"}));
  EXPECT_EQ(relieved.cubin, "rolled+sync@1");
  EXPECT_EQ(relieved.report.spilledBytes(), 24);
  EXPECT_EQ(reliefOf(kernel.ptx), "rolled+sync");
  EXPECT_TRUE(llvm::StringRef(kernel.ptx).contains(".minnctapersm 1"));
  // As is (both occupancies), rolled, rolled+sync, tight+sync (both each).
  EXPECT_EQ(relieved.calls, 8);
}

/// The reliefs the drivers would try for `kernel`, in order, each named by
/// its parts: "r" rolled FMA loops ("t" at kTightFmaKUnroll steps), "s"
/// no dot in flight, "a" asynchronous staging, "L" lean addresses, "H"
/// invariants kept in their loops, "F" fewer wgmma fragments at once.
std::vector<std::string> ladderOf(const CompiledKernel &kernel) {
  auto compile = [](SpillRelief) -> mlir::FailureOr<CompiledKernel> {
    return mlir::failure();
  };
  std::vector<std::string> names;
  for (const SpillRelief &r :
       SpillRecompile{availableReliefs(kernel), compile}.reliefs())
    names.push_back(std::string(r.fmaKUnroll == kTightFmaKUnroll ? "t"
                                : r.fmaKUnroll > 0               ? "r"
                                                                 : "") +
                    (r.synchronousDots ? "s" : "") +
                    (r.asyncStaging ? "a" : "") + (r.leanAddresses ? "L" : "") +
                    (r.keepInvariants ? "H" : "") +
                    (r.wgmmaFragmentSteps > 0 ? "F" : ""));
  return names;
}

TEST(AvailableReliefs, OnlyWhatChangesTheCode) {
  CompiledKernel kernel;
  EXPECT_FALSE(availableReliefs(kernel).any());
  kernel.fmaKSteps = kSpillingFmaKUnroll; // a rolled loop takes as many
  EXPECT_FALSE(availableReliefs(kernel).any());
  kernel.fmaKSteps = 4 * kSpillingFmaKUnroll;
  kernel.dotsInFlight = true;
  SpillRelief all = availableReliefs(kernel);
  EXPECT_EQ(all.fmaKUnroll, kSpillingFmaKUnroll);
  EXPECT_TRUE(all.synchronousDots);
  // Each relief tried adds the next to the one before; last, all of them
  // with the tighter loops.
  auto compile = [](SpillRelief) -> mlir::FailureOr<CompiledKernel> {
    return mlir::failure();
  };
  llvm::SmallVector<SpillRelief, 11> ladder =
      SpillRecompile{all, compile}.reliefs();
  ASSERT_EQ(ladder.size(), 3u);
  EXPECT_TRUE(ladder[0].fmaKUnroll == kSpillingFmaKUnroll &&
              !ladder[0].synchronousDots);
  EXPECT_TRUE(ladder[1].fmaKUnroll == kSpillingFmaKUnroll &&
              ladder[1].synchronousDots);
  EXPECT_TRUE(ladder[2].fmaKUnroll == kTightFmaKUnroll &&
              ladder[2].synchronousDots);
  // Without rolled loops there is no tighter step either.
  kernel.fmaKSteps = 0;
  SpillRecompile unrolled{availableReliefs(kernel), compile};
  EXPECT_EQ(unrolled.reliefs().size(), 1u);
}

TEST(AvailableReliefs, AsynchronousStagingFirstThenWithTheOthers) {
  CompiledKernel kernel;
  kernel.registerStaging = true;
  SpillRelief staging = availableReliefs(kernel);
  EXPECT_TRUE(staging.asyncStaging);
  EXPECT_FALSE(staging.synchronousDots || staging.fmaKUnroll > 0);
  auto compile = [](SpillRelief) -> mlir::FailureOr<CompiledKernel> {
    return mlir::failure();
  };
  llvm::SmallVector<SpillRelief, 11> alone =
      SpillRecompile{staging, compile}.reliefs();
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_TRUE(alone[0].asyncStaging);
  // With the other two: alone, the ladder without it, the ladder with it,
  // then all three with the tighter loops.
  kernel.fmaKSteps = 4 * kSpillingFmaKUnroll;
  kernel.dotsInFlight = true;
  EXPECT_EQ(ladderOf(kernel),
            (std::vector<std::string>{"a", "r", "rs", "ra", "rsa", "tsa"}));
}

TEST(AvailableReliefs, LeanAddressesLastWhereThereIsSharedMemory) {
  CompiledKernel kernel;
  kernel.contract.sharedMemoryBytes = 0; // no shared addresses to shorten
  kernel.registerStaging = true;
  EXPECT_EQ(ladderOf(kernel), std::vector<std::string>{"a"});
  kernel.contract.sharedMemoryBytes = 65536;
  EXPECT_EQ(ladderOf(kernel), (std::vector<std::string>{"a", "L", "aL"}));
  kernel.registerStaging = false;
  EXPECT_EQ(ladderOf(kernel), std::vector<std::string>{"L"});
  kernel.fmaKSteps = 4 * kSpillingFmaKUnroll;
  kernel.dotsInFlight = true;
  kernel.registerStaging = true;
  EXPECT_EQ(ladderOf(kernel),
            (std::vector<std::string>{"a", "r", "rs", "ra", "rsa", "tsa", "L",
                                      "rsaL", "tsaL"}));
}

TEST(AvailableReliefs, InvariantsKeptLastWhereThereIsALoop) {
  // The general tf32 GEMM of 128 x 256 x 64: register staging, shared
  // memory, a dot in flight, 8 k-steps of wgmma fragments.
  CompiledKernel kernel;
  kernel.contract.sharedMemoryBytes = 98304;
  kernel.registerStaging = true;
  kernel.dotsInFlight = true;
  kernel.wgmmaFragmentSteps = 2 * kSpillingWgmmaFragmentSteps;
  // Without a loop nothing is hoisted, and fewer fragments at once come
  // only with that.
  EXPECT_EQ(ladderOf(kernel),
            (std::vector<std::string>{"a", "s", "sa", "L", "saL"}));
  kernel.loops = true;
  EXPECT_EQ(
      ladderOf(kernel),
      (std::vector<std::string>{"a", "s", "sa", "L", "saL", "saLH", "saLHF",
                                "H"}));
  // Fragments already loaded in groups that small: no F step.
  kernel.wgmmaFragmentSteps = kSpillingWgmmaFragmentSteps;
  EXPECT_EQ(ladderOf(kernel).back(), "H");
  EXPECT_EQ(ladderOf(kernel)[ladderOf(kernel).size() - 2], "saLH");
  // A loop and nothing else to relieve: invariants kept, once.
  CompiledKernel bare;
  bare.loops = true;
  EXPECT_EQ(ladderOf(bare), std::vector<std::string>{"H"});
  SpillRelief all = availableReliefs(kernel);
  EXPECT_TRUE(all.keepInvariants);
  EXPECT_EQ(all.wgmmaFragmentSteps, 0);
}

TEST(AssembleAvoidingSpills, LeanAddressesAfterTheOthers) {
  // Nothing else stops the spills; lean addresses alone do.
  CompiledKernel kernel = spillingKernel("sgemm", 32);
  FakeReliefPtxas ptxas{{{"as is", {16, 16}},
                         {"rolled", {24, 24}},
                         {"tight", {20, 20}},
                         {"lean", {0, 0}}}};
  SpillRelief available{kSpillingFmaKUnroll};
  available.leanAddresses = true;
  Relieved relieved = relieve(kernel, ptxas, available);
  EXPECT_EQ(relieved.asked,
            (std::vector<std::string>{"rolled", "tight", "lean"}));
  EXPECT_EQ(relieved.cubin, "lean@2");
  EXPECT_EQ(relieved.report.spilledBytes(), 0);
  EXPECT_EQ(reliefOf(kernel.ptx), "lean");
}

TEST(AssembleAvoidingSpills, KeepsTheLeastSpillingCombination) {
  // ptxas's spills are not monotonic in the reliefs: asynchronous staging
  // alone spills more, with rolled loops nothing.
  CompiledKernel kernel = spillingKernel("attention", 64);
  kernel.registerStaging = true;
  FakeReliefPtxas ptxas{{{"as is", {40, 40}},
                         {"async", {64, 64}},
                         {"rolled", {40, 40}},
                         {"rolled+async", {0, 0}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{kSpillingFmaKUnroll, false, true});
  EXPECT_EQ(relieved.asked,
            (std::vector<std::string>{"async", "rolled", "rolled+async"}));
  EXPECT_EQ(relieved.cubin, "rolled+async@2");
  EXPECT_EQ(relieved.report.spilledBytes(), 0);
  EXPECT_EQ(reliefOf(kernel.ptx), "rolled+async");
}

TEST(AssembleAvoidingSpills, StopsAtTheFirstReliefThatDoesNotSpill) {
  CompiledKernel kernel = spillingKernel("attention", 64);
  kernel.dotsInFlight = true;
  FakeReliefPtxas ptxas{{{"as is", {300, 300}}, {"rolled", {0, 0}}}};
  Relieved relieved = relieve(kernel, ptxas, SpillRelief{kSpillingFmaKUnroll, true});
  EXPECT_EQ(relieved.cubin, "rolled@2");
  EXPECT_EQ(relieved.asked, std::vector<std::string>{"rolled"});
}

} // namespace
