//===- SessionTest.cpp - The front door: load, compile, interpret ---------===//
//
// phobos::Session is the path every entrance takes (the tools, the C API,
// Python): a program loads once, its variants compile through the kernel
// cache, run on the interpreter, and every error names the user's line.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Driver/Session.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace phobos;

namespace {

const char *kSaxpy =
    "@autotune(BLOCK in [16, 8192])\n"
    "kernel saxpy(x: tensor<f32>[N], y: tensor<f32>[N], out: tensor<f32>[N], "
    "alpha: f32) {\n"
    "    let base = ctx.block.x * BLOCK\n"
    "    out[base :+ BLOCK] = alpha * x[base :+ BLOCK] + y[base :+ BLOCK]\n"
    "}\n";

std::string messageOf(llvm::Error error, unsigned *line = nullptr) {
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const SessionError &failure) {
    message = failure.getMessage();
    if (line)
      *line = failure.getLine();
  });
  return message;
}

TEST(SessionTest, CompilesThroughTheCache) {
  llvm::SmallString<128> cache;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("session-cache", cache));
  Session session;
  ASSERT_FALSE(bool(session.load(kSaxpy, "saxpy.ph")));
  llvm::Expected<std::vector<std::string>> names = session.kernelNames();
  ASSERT_TRUE(bool(names));
  EXPECT_EQ(*names, std::vector<std::string>{"saxpy"});

  CompileOptions options;
  options.chip = "sm_90a";
  options.assemble = false;
  options.cacheDir = cache.str().str();
  llvm::StringMap<int64_t> variant{{"BLOCK", 1024}}, noDims;
  llvm::Expected<KernelBuild> first =
      session.getOrCompile("saxpy", variant, noDims, options);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_FALSE(first->fromCache);
  EXPECT_NE(first->kernel.ptx.find(".entry saxpy"), std::string::npos);
  EXPECT_EQ(first->kernel.contract.variant.front().second, 1024);
  EXPECT_FALSE(first->cacheEntry.empty());

  // The same variant again: the cache's entry, the same PTX.
  llvm::Expected<KernelBuild> again =
      session.getOrCompile("saxpy", variant, noDims, options);
  ASSERT_TRUE(bool(again));
  EXPECT_TRUE(again->fromCache);
  EXPECT_EQ(again->kernel.ptx, first->kernel.ptx);
  EXPECT_EQ(again->cacheEntry, first->cacheEntry);

  // Specialised for N = 4096: the promise is in the contract and the key.
  llvm::StringMap<int64_t> dims{{"N", 4096}};
  llvm::Expected<KernelBuild> specialized =
      session.getOrCompile("saxpy", variant, dims, options);
  ASSERT_TRUE(bool(specialized));
  ASSERT_EQ(specialized->kernel.contract.aligned.size(), 1u);
  EXPECT_EQ(specialized->kernel.contract.aligned.front(),
            std::make_pair(std::string("N"), int64_t(16)));
  EXPECT_NE(specialized->cacheEntry, first->cacheEntry);
  llvm::sys::fs::remove_directories(cache);
}

TEST(SessionTest, ErrorsNameTheLine) {
  Session session;
  // A program that does not parse is refused when it loads.
  unsigned line = 0;
  std::string message = messageOf(
      session.load("kernel bad(x: tensor<f32>[N]) {\n    let = 4\n}\n",
                   "syntax.ph"),
      &line);
  EXPECT_EQ(line, 2u) << message;
  EXPECT_NE(message.find("syntax.ph:2:"), std::string::npos) << message;

  // One that parses is checked a variant at a time, when it compiles.
  ASSERT_FALSE(bool(session.load("kernel bad(x: tensor<f32>[N]) {\n"
                                 "    let y = x[0 :+ 64] + x[0 :+ 32]\n}\n",
                                 "bad.ph")));
  CompileOptions contract;
  contract.chip = kContractOnlyChip.str();
  llvm::Expected<KernelBuild> checked =
      session.getOrCompile("bad", {}, {}, contract);
  ASSERT_FALSE(bool(checked));
  line = 0;
  message = messageOf(checked.takeError(), &line);
  EXPECT_EQ(line, 2u);
  EXPECT_NE(message.find("bad.ph:2:"), std::string::npos) << message;
  EXPECT_NE(message.find("shapes do not broadcast"), std::string::npos)
      << message;

  ASSERT_FALSE(bool(session.load(kSaxpy, "saxpy.ph")));
  CompileOptions options;
  options.chip = "sm_70";
  llvm::Expected<KernelBuild> build =
      session.getOrCompile("saxpy", {}, {}, options);
  ASSERT_FALSE(bool(build));
  EXPECT_NE(messageOf(build.takeError()).find("unsupported chip 'sm_70'"),
            std::string::npos);
  options.chip = "sm_90a";
  build = session.getOrCompile("nope", {}, {}, options);
  ASSERT_FALSE(bool(build));
  EXPECT_NE(messageOf(build.takeError()).find("nope"), std::string::npos);
}

TEST(SessionTest, InterpretsInPlace) {
  Session session;
  ASSERT_FALSE(bool(session.load(kSaxpy, "saxpy.ph")));
  const int64_t n = 300;
  std::vector<float> x(n), y(n), out(n, NAN);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i) * 0.5f;
    y[i] = 1.0f - float(i % 7);
  }
  std::vector<interp::Argument> args;
  for (std::vector<float> *tensor : {&x, &y, &out}) {
    interp::TensorArg arg;
    arg.data = tensor->data();
    arg.elementType = ElementType::F32;
    arg.shape = {n};
    args.push_back(arg);
  }
  interp::ScalarArg alpha;
  alpha.floatValue = 2.0;
  args.push_back(alpha);
  interp::Options options;
  options.grid = {3, 1, 1};
  llvm::StringMap<int64_t> variant{{"BLOCK", 128}};
  ASSERT_FALSE(bool(session.interpret("saxpy", variant, args, options)));
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(out[i], 2.0f * x[i] + y[i]) << i;

  // A tensor where a scalar belongs is refused, naming the parameter.
  std::vector<interp::Argument> wrong = args;
  wrong[3] = args[0];
  EXPECT_NE(messageOf(session.interpret("saxpy", variant, wrong, options))
                .find("argument 'alpha': expected a scalar"),
            std::string::npos);
}

} // namespace
