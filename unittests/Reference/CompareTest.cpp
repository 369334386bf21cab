//===- CompareTest.cpp - Checking outputs against a reference -------------===//

#include "ExampleReferences.h"
#include "Phobos/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace phobos;
using namespace phobos::reference;

namespace {

/// c = a + b over `n` f32 elements, with c computed exactly.
struct AddCase {
  HostTensor a, b, c;
  Problem problem;
  std::unique_ptr<Reference> reference = examples::exampleReferences().make("add");

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

// Non-finite expected values (issue 48): each must be matched exactly, and
// none may hide the error of the finite elements or set the scale.
TEST(ErrorMeasureTest, InfinityInExpectedDoesNotHideOtherErrors) {
  ErrorMeasure measure;
  measure.add(INFINITY, INFINITY);
  measure.add(1.0, 2.0); // 50% off
  EXPECT_DOUBLE_EQ(measure.maxRelativeError(), 0.5);
  EXPECT_EQ(measure.count(), 2);
  EXPECT_EQ(measure.finiteExpected(), 1);
}

TEST(ErrorMeasureTest, FlippedInfinityIsAMismatch) {
  ErrorMeasure measure;
  EXPECT_TRUE(measure.add(1.0, 1.0));
  EXPECT_TRUE(measure.add(-INFINITY, INFINITY)); // the worst element
  EXPECT_FALSE(measure.add(5.0, 1.0));           // the first mismatch stays
  EXPECT_TRUE(std::isinf(measure.maxRelativeError()));
}

TEST(ErrorMeasureTest, NaNMatchesOnlyNaN) {
  ErrorMeasure numberForNaN;
  numberForNaN.add(1.0, NAN);
  EXPECT_TRUE(std::isinf(numberForNaN.maxRelativeError()));
  ErrorMeasure nanForNumber;
  nanForNumber.add(NAN, 1.0);
  EXPECT_TRUE(std::isinf(nanForNumber.maxRelativeError()));
  ErrorMeasure nanForNaN;
  nanForNaN.add(NAN, NAN);
  nanForNaN.add(2.0, 2.0);
  EXPECT_EQ(nanForNaN.maxRelativeError(), 0);
}

TEST(ErrorMeasureTest, AllNaNExpectedPassesOnlyNaN) {
  ErrorMeasure numbers, nans;
  for (int i = 0; i < 4; ++i) {
    numbers.add(i, NAN);
    nans.add(NAN, NAN);
  }
  EXPECT_TRUE(std::isinf(numbers.maxRelativeError()));
  EXPECT_EQ(nans.maxRelativeError(), 0);
  EXPECT_EQ(nans.finiteExpected(), 0);
}

TEST(ErrorMeasureTest, ScaleIgnoresInfinitiesAndZerosNeedExactness) {
  ErrorMeasure measure;
  measure.add(-INFINITY, -INFINITY);
  measure.add(4.5, 4.0);
  EXPECT_DOUBLE_EQ(measure.maxRelativeError(), 0.125);
  ErrorMeasure zeros;
  zeros.add(1e-20, 0.0);
  EXPECT_TRUE(std::isinf(zeros.maxRelativeError()));
}

/// A reference whose output `c` is fixed values, for compare() itself.
class FixedReference : public Reference {
public:
  explicit FixedReference(std::vector<double> values) : values(std::move(values)) {}
  std::vector<Signature> signatures() const override { return {{{"c", {"N"}}}}; }
  std::vector<std::string> tensorNames() const override { return {"c"}; }
  std::vector<std::string> outputNames() const override { return {"c"}; }
  double element(const Problem &, llvm::StringRef,
                 llvm::ArrayRef<int64_t> index) override {
    return values[index[0]];
  }
  std::vector<double> values;
};

TEST(CompareTest, InfinityInReferenceDoesNotHideAWrongElement) {
  FixedReference reference({INFINITY, 1.0, 2.0, 3.0});
  HostTensor got(ElementType::F32, {4});
  for (auto [i, value] : llvm::enumerate(std::vector<double>{INFINITY, 1.0, 7.0, 3.0}))
    got.set(i, value);
  Problem problem;
  problem.tensors["c"] = &got;
  Comparison result = compare(reference, problem, "c", got, 1 << 18, 16, 1);
  EXPECT_NEAR(result.maxRelativeError, 5.0 / 3.0, 1e-12);
  ASSERT_EQ(result.worstIndex.size(), 1u);
  EXPECT_EQ(result.worstIndex[0], 2);
  got.set(0, -INFINITY);
  got.set(2, 2.0);
  result = compare(reference, problem, "c", got, 1 << 18, 16, 1);
  EXPECT_TRUE(std::isinf(result.maxRelativeError));
  EXPECT_EQ(result.worstIndex[0], 0);
  EXPECT_EQ(result.worstGot, -INFINITY);
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
