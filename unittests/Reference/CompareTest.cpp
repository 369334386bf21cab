//===- CompareTest.cpp - Checking outputs against a reference -------------===//

#include "Phobos/Reference/Reference.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace phobos;
using namespace phobos::reference;

namespace {

/// c = a + b over `n` f32 elements, with c computed exactly.
struct AddCase {
  HostTensor a, b, c;
  Problem problem;
  std::unique_ptr<Reference> reference = makeReference("add");

  explicit AddCase(int64_t n)
      : a(ElementType::F32, {n}), b(ElementType::F32, {n}), c(ElementType::F32, {n}) {
    std::mt19937_64 rng(7);
    a.fillRandom(rng);
    b.fillRandom(rng);
    problem.tensors["a"] = &a;
    problem.tensors["b"] = &b;
    problem.tensors["c"] = &c;
    c.poison();
    for (int64_t i = 0; i < n; ++i)
      c.set(i, a.get(i) + b.get(i));
  }
};

TEST(CompareTest, ExactOutputPasses) {
  AddCase run(1000);
  Comparison result = compare(*run.reference, run.problem, "c", run.c,
                              /*fullCheckLimit=*/1 << 18, /*sampleCount=*/64, 1);
  EXPECT_EQ(result.elementsChecked, 1000);
  EXPECT_LE(result.maxRelativeError, 1e-7);
  EXPECT_EQ(result.unwritten, 0);
}

// Above the full-check limit only a sample is compared, but an element the
// kernel never stored is found wherever it is.
TEST(CompareTest, SampledCheckFindsUnwrittenElement) {
  AddCase run(100000);
  run.c.poison();
  for (int64_t i = 0; i < 100000; ++i)
    if (i != 4242)
      run.c.set(i, run.a.get(i) + run.b.get(i));
  Comparison result = compare(*run.reference, run.problem, "c", run.c,
                              /*fullCheckLimit=*/1000, /*sampleCount=*/16, 1);
  EXPECT_LT(result.elementsChecked, 100);
  EXPECT_EQ(result.unwritten, 1);
  ASSERT_EQ(result.firstUnwritten.size(), 1u);
  EXPECT_EQ(result.firstUnwritten[0], 4242);
  EXPECT_TRUE(std::isinf(result.maxRelativeError));
}

TEST(CompareTest, WrongValueIsReported) {
  AddCase run(10);
  run.c.set(3, run.c.get(3) + 1.0);
  Comparison result = compare(*run.reference, run.problem, "c", run.c,
                              /*fullCheckLimit=*/1 << 18, /*sampleCount=*/16, 1);
  EXPECT_GT(result.maxRelativeError, 0.1);
  ASSERT_EQ(result.worstIndex.size(), 1u);
  EXPECT_EQ(result.worstIndex[0], 3);
  EXPECT_EQ(result.unwritten, 0);
}

TEST(HostTensorTest, PoisonIsRecognised) {
  for (ElementType type : {ElementType::F16, ElementType::BF16, ElementType::F32,
                           ElementType::F64, ElementType::I32, ElementType::I64}) {
    HostTensor t(type, {4});
    t.poison();
    t.set(1, 2.0);
    EXPECT_TRUE(t.isPoisoned(0)) << name(type).str();
    EXPECT_FALSE(t.isPoisoned(1)) << name(type).str();
  }
  HostTensor flags(ElementType::Bool, {2});
  flags.poison();
  EXPECT_FALSE(flags.isPoisoned(0));
}

} // namespace
