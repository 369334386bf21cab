//===- PtxasReportTest.cpp - What ptxas -v says about a kernel ------------===//
//
// parsePtxasReport reads the resource lines `ptxas -v` prints for a kernel
// (what `phobos-compile --resources` shows and CI checks for spills).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Driver/Compiler.h"

#include <gtest/gtest.h>

using namespace phobos;

namespace {

/// Registers, spill stores, spill loads and stack frame of `log`.
void expectReport(llvm::StringRef log, int registers, int spillStores,
                  int spillLoads, int stackFrame) {
  AssemblyReport report = parsePtxasReport(log);
  EXPECT_EQ(report.registers, registers);
  EXPECT_EQ(report.spillStoreBytes, spillStores);
  EXPECT_EQ(report.spillLoadBytes, spillLoads);
  EXPECT_EQ(report.stackFrameBytes, stackFrame);
}

TEST(PtxasReport, ReadsRegistersSpillsAndStack) {
  expectReport(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'gla_chunk' for 'sm_90a'\n"
      "ptxas info    : Function properties for gla_chunk\n"
      "    72 bytes stack frame, 68 bytes spill stores, 96 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 72 bytes "
      "cumulative stack size\n",
      255, 68, 96, 72);
}

TEST(PtxasReport, ASpillFreeKernel) {
  expectReport(
      "ptxas info    : Function properties for saxpy\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 24 registers\n",
      24, 0, 0, 0);
}

TEST(PtxasReport, WhatIsNotReportedStaysUnknown) {
  expectReport("ptxas fatal   : Unresolved extern\n", -1, -1, -1, -1);
}

} // namespace
