//===- NumericsTest.cpp - Element types and their rounding ----------------===//
//
// The interpreter, the host tensors and the references all round through
// these functions, so a rounding bug here makes every CPU result disagree
// with the GPU: the ties, subnormals and overflows are tested bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Support/Numerics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>

using namespace phobos;

namespace {

TEST(NumericsTest, HalfExactValues) {
  EXPECT_EQ(doubleToHalf(0.0), 0x0000);
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(doubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(doubleToHalf(-2.0), 0xc000);
  EXPECT_EQ(doubleToHalf(65504.0), 0x7bff); // The largest finite half.
  EXPECT_EQ(halfToDouble(0x3555), 0x1.554p-2);
}

TEST(NumericsTest, HalfRoundsTiesToEven) {
  // Halfway between 1 (even) and 1 + 2^-10 (odd): down.
  EXPECT_EQ(doubleToHalf(1.0 + 0x1p-11), 0x3c00);
  // Halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): up.
  EXPECT_EQ(doubleToHalf(1.0 + 3 * 0x1p-11), 0x3c02);
  // Just past the tie: up.
  EXPECT_EQ(doubleToHalf(1.0 + 0x1p-11 + 0x1p-30), 0x3c01);
  // A tie whose rounding carries into the next binade (0x3fff is odd).
  EXPECT_EQ(doubleToHalf(2.0 - 0x1p-11), 0x4000);
}

TEST(NumericsTest, HalfSubnormals) {
  EXPECT_EQ(doubleToHalf(0x1p-24), 0x0001); // The smallest subnormal.
  EXPECT_EQ(halfToDouble(0x0001), 0x1p-24);
  EXPECT_EQ(doubleToHalf(0x1p-14 - 0x1p-24), 0x03ff); // The largest.
  EXPECT_EQ(doubleToHalf(0x1p-14), 0x0400);           // The smallest normal.
  // Half the smallest subnormal ties to 0 (even); more rounds up.
  EXPECT_EQ(doubleToHalf(0x1p-25), 0x0000);
  EXPECT_EQ(doubleToHalf(0x1p-25 + 0x1p-40), 0x0001);
  // 1.5 units ties to 2 units (even), 2.5 units to 2.
  EXPECT_EQ(doubleToHalf(3 * 0x1p-25), 0x0002);
  EXPECT_EQ(doubleToHalf(5 * 0x1p-25), 0x0002);
  EXPECT_EQ(doubleToHalf(-0x1p-24), 0x8001);
  EXPECT_EQ(doubleToHalf(0x1p-30), 0x0000);
}

TEST(NumericsTest, HalfOverflowsToInfinity) {
  // 65520 is halfway between 65504 and 2^16, which is not a half: infinity.
  EXPECT_EQ(doubleToHalf(65519.99), 0x7bff);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7c00);
  EXPECT_EQ(doubleToHalf(-65520.0), 0xfc00);
  EXPECT_EQ(doubleToHalf(1e300), 0x7c00);
  EXPECT_EQ(doubleToHalf(HUGE_VAL), 0x7c00);
  EXPECT_EQ(halfToDouble(0x7c00), HUGE_VAL);
  EXPECT_EQ(halfToDouble(0xfc00), -HUGE_VAL);
}

TEST(NumericsTest, HalfNaN) {
  uint16_t bits = doubleToHalf(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(bits & 0x7c00, 0x7c00);
  EXPECT_NE(bits & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(halfToDouble(bits)));
  EXPECT_TRUE(std::isnan(halfToDouble(0x7c01)));
  EXPECT_TRUE(std::isnan(roundTo(ElementType::F16, NAN)));
}

TEST(NumericsTest, BF16RoundsTiesToEven) {
  EXPECT_EQ(doubleToBF16(1.0), 0x3f80);
  EXPECT_EQ(doubleToBF16(-2.0), 0xc000);
  // bf16 keeps 7 fraction bits: 1 + 2^-8 is halfway, 1 is even.
  EXPECT_EQ(doubleToBF16(1.0 + 0x1p-8), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 0x3f81 (odd) and 0x3f82 (even).
  EXPECT_EQ(doubleToBF16(1.0 + 3 * 0x1p-8), 0x3f82);
  EXPECT_EQ(doubleToBF16(1.0 + 0x1p-8 + 0x1p-20), 0x3f81);
  EXPECT_EQ(bf16ToDouble(0x3f81), 1.0 + 0x1p-7);
  // Past the largest finite bf16's rounding boundary: infinity.
  EXPECT_EQ(doubleToBF16(0x1.ffp127), 0x7f80);
  uint16_t nan = doubleToBF16(NAN);
  EXPECT_TRUE(std::isnan(bf16ToDouble(nan)));
}

TEST(NumericsTest, TF32RoundsTiesAwayFromZero) {
  // tf32 keeps 10 fraction bits.
  EXPECT_EQ(roundToTF32(1.0), 1.0);
  EXPECT_EQ(roundToTF32(1.0 + 0x1p-11), 1.0 + 0x1p-10); // Tie: away.
  EXPECT_EQ(roundToTF32(-(1.0 + 0x1p-11)), -(1.0 + 0x1p-10));
  EXPECT_EQ(roundToTF32(1.0 + 3 * 0x1p-11), 1.0 + 0x1p-9); // Tie: away.
  EXPECT_EQ(roundToTF32(1.0 + 0x1p-12), 1.0);
  EXPECT_EQ(roundToTF32(HUGE_VAL), HUGE_VAL);
  EXPECT_TRUE(std::isnan(roundToTF32(NAN)));
}

TEST(NumericsTest, FloatToIntTruncatesAndSaturates) {
  EXPECT_EQ(floatToInt(ElementType::I32, 2.9), 2);
  EXPECT_EQ(floatToInt(ElementType::I32, -2.9), -2);
  EXPECT_EQ(floatToInt(ElementType::I32, 1e10), INT32_MAX);
  EXPECT_EQ(floatToInt(ElementType::I32, -1e10), INT32_MIN);
  EXPECT_EQ(floatToInt(ElementType::I32, HUGE_VAL), INT32_MAX);
  EXPECT_EQ(floatToInt(ElementType::I32, NAN), 0);
  EXPECT_EQ(floatToInt(ElementType::I64, 1e19), INT64_MAX);
  EXPECT_EQ(floatToInt(ElementType::I64, -1e19), INT64_MIN);
  EXPECT_EQ(floatToInt(ElementType::I64, 0x1p62), int64_t(1) << 62);
  EXPECT_EQ(floatToInt(ElementType::Bool, 0.5), 1);
}

TEST(NumericsTest, WrapToTwosComplement) {
  EXPECT_EQ(wrapTo(ElementType::I32, int64_t(1) << 31), INT32_MIN);
  EXPECT_EQ(wrapTo(ElementType::I32, (int64_t(1) << 32) + 5), 5);
  EXPECT_EQ(wrapTo(ElementType::I32, -1), -1);
  EXPECT_EQ(wrapTo(ElementType::I32, INT64_MIN), 0);
  EXPECT_EQ(wrapTo(ElementType::I64, INT64_MIN), INT64_MIN);
  EXPECT_EQ(wrapTo(ElementType::Bool, 5), 1);
  EXPECT_EQ(wrapTo(ElementType::Bool, 0), 0);
}

TEST(NumericsTest, ElementTypeNames) {
  for (ElementType type :
       {ElementType::Bool, ElementType::I32, ElementType::I64, ElementType::F16,
        ElementType::BF16, ElementType::F32, ElementType::F64})
    EXPECT_EQ(parseElementType(name(type)), type);
  EXPECT_EQ(parseElementType("i1"), ElementType::Bool);
  EXPECT_EQ(parseElementType("f8"), std::nullopt);
  EXPECT_EQ(byteWidth(ElementType::BF16), 2u);
}

// Values read from text (--init, --scalar, job scalars): exact for
// integers, rounded once for floats, and never silently wrapped, saturated
// or turned into an infinity.
TEST(NumericsTest, ParseElementValueIntegersAreExact) {
  llvm::Expected<ElementValue> near =
      parseElementValue(ElementType::I64, "9223372036854775000");
  ASSERT_TRUE(bool(near));
  EXPECT_EQ(near->i, 9223372036854775000LL);
  llvm::Expected<ElementValue> bottom =
      parseElementValue(ElementType::I64, "-9223372036854775808");
  ASSERT_TRUE(bool(bottom));
  EXPECT_EQ(bottom->i, INT64_MIN);
  llvm::Expected<ElementValue> thousand = parseElementValue(ElementType::I32, "1e3");
  ASSERT_TRUE(bool(thousand));
  EXPECT_EQ(thousand->i, 1000);
  auto message = [](ElementType type, llvm::StringRef text) {
    llvm::Expected<ElementValue> value = parseElementValue(type, text);
    return value ? std::string("accepted") : llvm::toString(value.takeError());
  };
  const std::string i32Range = "i32 holds integers in [-2147483648, 2147483647]";
  EXPECT_EQ(message(ElementType::I32, "3e9"), "'3e9' is out of range: " + i32Range);
  EXPECT_EQ(message(ElementType::I32, "2147483648"),
            "'2147483648' is out of range: " + i32Range);
  EXPECT_EQ(message(ElementType::I64, "9223372036854775808"),
            "'9223372036854775808' is out of range: i64 holds integers in "
            "[-9223372036854775808, 9223372036854775807]");
  EXPECT_EQ(message(ElementType::I32, "inf"),
            "'inf' is not exactly an integer (" + i32Range + ")");
  EXPECT_EQ(message(ElementType::I32, "nan"),
            "'nan' is not exactly an integer (" + i32Range + ")");
  EXPECT_EQ(message(ElementType::I32, "2.5"),
            "'2.5' is not exactly an integer (" + i32Range + ")");
  EXPECT_EQ(message(ElementType::Bool, "2"), "'2' is out of range: a bool is 0 or 1");
  EXPECT_EQ(message(ElementType::F32, "one"), "'one' is not a number");
}

TEST(NumericsTest, ParseElementValueRoundsFloatsOnce) {
  // Just above the midpoint 1 + 2^-24 of two f32 values: its nearest double
  // is the midpoint, which rounds to even (1.0); its nearest f32 is
  // 1 + 2^-23.
  const char *aboveMidpoint = "1.00000005960464477539062500001";
  llvm::Expected<ElementValue> single =
      parseElementValue(ElementType::F32, aboveMidpoint);
  ASSERT_TRUE(bool(single));
  EXPECT_EQ(single->f, 1.0 + 0x1p-23);
  EXPECT_EQ(static_cast<float>(std::strtod(aboveMidpoint, nullptr)), 1.0f);
  llvm::Expected<ElementValue> infinity = parseElementValue(ElementType::F32, "-inf");
  ASSERT_TRUE(bool(infinity));
  EXPECT_EQ(infinity->f, -INFINITY);
  llvm::Expected<ElementValue> nan = parseElementValue(ElementType::F16, "nan");
  ASSERT_TRUE(bool(nan));
  EXPECT_TRUE(std::isnan(nan->f));
  llvm::Expected<ElementValue> beyond = parseElementValue(ElementType::F32, "1e39");
  ASSERT_FALSE(bool(beyond));
  EXPECT_EQ(llvm::toString(beyond.takeError()),
            "'1e39' does not fit in f32 (its largest finite value is "
            "3.40282347E+38)");
  llvm::Expected<ElementValue> half = parseElementValue(ElementType::F16, "70000");
  ASSERT_FALSE(bool(half));
  llvm::consumeError(half.takeError());
  llvm::Expected<ElementValue> tiny = parseElementValue(ElementType::F32, "1e-50");
  ASSERT_TRUE(bool(tiny));
  EXPECT_EQ(tiny->f, 0.0);
}

} // namespace

// exp as the GPU computes it (ex2.approx.ftz): a result below 2^-126 is 0
// for every float element type but f64.
TEST(NumericsTest, ExpFlushesSubnormalResults) {
  EXPECT_EQ(flushedExp(ElementType::F32, 0.0), 1.0);
  EXPECT_NEAR(flushedExp(ElementType::F32, -87.0), std::exp(-87.0), 1e-50);
  EXPECT_GT(flushedExp(ElementType::F32, -87.0), 0x1p-126);
  EXPECT_EQ(flushedExp(ElementType::F32, -88.0), 0.0);
  EXPECT_EQ(flushedExp(ElementType::BF16, -100.0), 0.0);
  EXPECT_EQ(flushedExp(ElementType::F16, -100.0), 0.0);
  EXPECT_EQ(flushedExp(ElementType::F64, -88.0), std::exp(-88.0));
  EXPECT_TRUE(std::isnan(flushedExp(ElementType::F32, NAN)));
  EXPECT_EQ(flushedExp(ElementType::F32, INFINITY), INFINITY);
  EXPECT_EQ(flushedExp(ElementType::F32, -INFINITY), 0.0);
}
