//===- JobFileTest.cpp - The job-file library -----------------------------===//

#include "Phobos/Job/JobFile.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace phobos;
using namespace phobos::job;

namespace {

/// Parses `text` as a job; `errors` receives the messages.
std::optional<Job> parse(llvm::StringRef text, std::string &errors,
                         llvm::SourceMgr &sourceMgr) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "test.job"), llvm::SMLoc());
  llvm::raw_string_ostream os(errors);
  return parseJob(sourceMgr, os);
}

TEST(JobFileTest, ParsesTheOriginalFormat) {
  llvm::SourceMgr sourceMgr;
  std::string errors;
  std::optional<Job> job = parse(
      "source = examples/flash_attention.ph  # the kernel\n"
      "dim Nq = 16384\n"
      "\n"
      "// K and V\n"
      "tensor K = read  f32 16384x64 file:///tmp/k.tensor\n"
      "tensor O = write f32 16384x64 file:///tmp/o.tensor\n"
      "tensor S = rmw   f32 8 file:///tmp/s.tensor\n"
      "scalar scale = f32 0.125\n"
      "scalar n = i32 -3\n"
      "scalar flag = bool true\n",
      errors, sourceMgr);
  ASSERT_TRUE(job) << errors;
  EXPECT_EQ(job->source, "examples/flash_attention.ph");
  EXPECT_TRUE(job->kernel.empty());
  ASSERT_EQ(job->dims.size(), 1u);
  EXPECT_EQ(job->findDim("Nq")->value, 16384);
  ASSERT_EQ(job->tensors.size(), 3u);
  const Tensor *k = job->findTensor("K");
  EXPECT_EQ(k->mode, Mode::Read);
  EXPECT_EQ(k->element, ElementType::F32);
  EXPECT_EQ(k->shape, (std::vector<int64_t>{16384, 64}));
  EXPECT_EQ(k->uri, "file:///tmp/k.tensor");
  EXPECT_EQ(job->findTensor("O")->mode, Mode::Write);
  EXPECT_EQ(job->findTensor("S")->mode, Mode::Rmw);
  EXPECT_EQ(job->findTensor("S")->shape, (std::vector<int64_t>{8}));
  EXPECT_DOUBLE_EQ(job->findScalar("scale")->value, 0.125);
  EXPECT_EQ(job->findScalar("n")->type, ElementType::I32);
  EXPECT_DOUBLE_EQ(job->findScalar("n")->value, -3);
  EXPECT_DOUBLE_EQ(job->findScalar("flag")->value, 1);
  EXPECT_EQ(job->findScalar("missing"), nullptr);
  EXPECT_TRUE(checkStorage(*job, sourceMgr, llvm::errs()));
}

TEST(JobFileTest, ReportsTheLineAndColumn) {
  llvm::SourceMgr sourceMgr;
  std::string errors;
  std::optional<Job> job =
      parse("source = a.ph\nkernel = k\ntensor A = read f32 4x4 s3://bucket/a\n",
            errors, sourceMgr);
  ASSERT_TRUE(job) << errors;
  EXPECT_EQ(job->kernel, "k");
  llvm::raw_string_ostream os(errors);
  EXPECT_FALSE(checkStorage(*job, sourceMgr, os));
  EXPECT_NE(errors.find("test.job:3:25: error: tensor 'A': storage is file:// "
                        "only"),
            std::string::npos)
      << errors;
}

TEST(JobFileTest, RejectsASecondSource) {
  llvm::SourceMgr sourceMgr;
  std::string errors;
  EXPECT_FALSE(parse("source = a.ph\nsource = b.ph\n", errors, sourceMgr));
  EXPECT_NE(errors.find("test.job:2:1: error: 'source' is given twice"),
            std::string::npos)
      << errors;
}

} // namespace
