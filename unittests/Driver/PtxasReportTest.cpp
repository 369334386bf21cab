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

TEST(PtxasReport, ReadsRegistersSpillsAndStack) {
  AssemblyReport report = parsePtxasReport(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'gla_chunk' for 'sm_90a'\n"
      "ptxas info    : Function properties for gla_chunk\n"
      "    72 bytes stack frame, 68 bytes spill stores, 96 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 72 bytes "
      "cumulative stack size\n");
  EXPECT_EQ(report.registers, 255);
  EXPECT_EQ(report.spillStoreBytes, 68);
  EXPECT_EQ(report.spillLoadBytes, 96);
  EXPECT_EQ(report.stackFrameBytes, 72);
}

TEST(PtxasReport, ASpillFreeKernel) {
  AssemblyReport report = parsePtxasReport(
      "ptxas info    : Function properties for saxpy\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 24 registers\n");
  EXPECT_EQ(report.registers, 24);
  EXPECT_EQ(report.spillStoreBytes, 0);
  EXPECT_EQ(report.spillLoadBytes, 0);
  EXPECT_EQ(report.stackFrameBytes, 0);
}

TEST(PtxasReport, WhatIsNotReportedStaysUnknown) {
  AssemblyReport report = parsePtxasReport("ptxas fatal   : Unresolved extern\n");
  EXPECT_EQ(report.registers, -1);
  EXPECT_EQ(report.spillStoreBytes, -1);
  EXPECT_EQ(report.spillLoadBytes, -1);
  EXPECT_EQ(report.stackFrameBytes, -1);
}

} // namespace
