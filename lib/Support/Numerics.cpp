//===- Numerics.cpp - Element types and their rounding --------------------===//

#include "Phobos/Support/Numerics.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace phobos;

bool phobos::isFloat(ElementType type) {
  return type == ElementType::F16 || type == ElementType::BF16 ||
         type == ElementType::F32 || type == ElementType::F64;
}

unsigned phobos::byteWidth(ElementType type) {
  switch (type) {
  case ElementType::Bool: return 1;
  case ElementType::F16:
  case ElementType::BF16: return 2;
  case ElementType::I32:
  case ElementType::F32: return 4;
  case ElementType::I64:
  case ElementType::F64: return 8;
  }
  return 0;
}

llvm::StringRef phobos::name(ElementType type) {
  switch (type) {
  case ElementType::Bool: return "bool";
  case ElementType::I32: return "i32";
  case ElementType::I64: return "i64";
  case ElementType::F16: return "f16";
  case ElementType::BF16: return "bf16";
  case ElementType::F32: return "f32";
  case ElementType::F64: return "f64";
  }
  return "?";
}

std::optional<ElementType> phobos::parseElementType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ElementType>>(name)
      .Cases({"bool", "i1"}, ElementType::Bool)
      .Case("i32", ElementType::I32)
      .Case("i64", ElementType::I64)
      .Case("f16", ElementType::F16)
      .Case("bf16", ElementType::BF16)
      .Case("f32", ElementType::F32)
      .Case("f64", ElementType::F64)
      .Default(std::nullopt);
}

static uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

static float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint16_t phobos::doubleToHalf(double value) {
  if (std::isnan(value))
    return 0x7e00;
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) // Rounds to infinity.
    return sign | 0x7c00;
  if (magnitude < std::ldexp(1.0, -25)) // Below half the smallest subnormal.
    return sign;
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude = m * 2^exponent, m in [0.5, 1)
  // Normal halves have exponents -14..15 (value 2^(e-1)); below is subnormal.
  int unbiased = exponent - 1;
  if (unbiased < -14) {
    // Subnormal: units of 2^-24.
    double units = std::nearbyint(std::ldexp(magnitude, 24));
    return sign | static_cast<uint16_t>(units);
  }
  // 10 fraction bits: scale so the significand has 11 bits.
  double significand = std::nearbyint(std::ldexp(magnitude, 10 - unbiased));
  if (significand >= 2048.0) { // Rounding carried into the next binade.
    significand /= 2;
    ++unbiased;
  }
  if (unbiased > 15)
    return sign | 0x7c00;
  uint16_t bits = static_cast<uint16_t>((unbiased + 15) << 10) |
                  (static_cast<uint16_t>(significand) & 0x3ff);
  return sign | bits;
}

double phobos::halfToDouble(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1f;
  int fraction = bits & 0x3ff;
  if (exponent == 0x1f)
    return fraction ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(fraction, -24);
  return sign * std::ldexp(1024 + fraction, exponent - 25);
}

uint16_t phobos::doubleToBF16(double value) {
  // Rounded once, from the exact value: 8 significant bits, exponents as
  // f32's, subnormals below 2^-126.
  if (std::isnan(value))
    return 0x7fc0;
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  // Halfway between the largest bf16 (0x7f7f) and 2^128 rounds to infinity.
  if (magnitude >= std::ldexp(255.5, 120))
    return sign | 0x7f80;
  if (magnitude < std::ldexp(1.0, -134)) // below half the smallest subnormal
    return sign;
  int exponent;
  std::frexp(magnitude, &exponent);
  int unbiased = exponent - 1;
  if (unbiased < -126) {
    double units = std::nearbyint(std::ldexp(magnitude, 133));
    return sign | static_cast<uint16_t>(units);
  }
  double significand = std::nearbyint(std::ldexp(magnitude, 7 - unbiased));
  if (significand >= 256.0) {
    significand /= 2;
    ++unbiased;
  }
  if (unbiased > 127)
    return sign | 0x7f80;
  return sign | static_cast<uint16_t>((unbiased + 127) << 7) |
         (static_cast<uint16_t>(significand) & 0x7f);
}

double phobos::bf16ToDouble(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

double phobos::roundToTF32(double value) {
  uint32_t bits = floatBits(static_cast<float>(value));
  if ((bits & 0x7f800000) == 0x7f800000) // Inf and NaN stay.
    return bitsFloat(bits);
  // Nearest, ties away from zero, on the 13 dropped mantissa bits.
  bits = (bits + 0x1000) & 0xffffe000;
  return bitsFloat(bits);
}

double phobos::roundTo(ElementType type, double value) {
  switch (type) {
  case ElementType::F16: return halfToDouble(doubleToHalf(value));
  case ElementType::BF16: return bf16ToDouble(doubleToBF16(value));
  case ElementType::F32: return static_cast<float>(value);
  default: return value;
  }
}

static double flushed(ElementType type, double result) {
  if (type != ElementType::F64 && result < 0x1p-126)
    return 0.0;
  return result;
}

double phobos::flushedExp(ElementType type, double x) {
  return flushed(type, std::exp(x));
}

double phobos::flushedExp2(ElementType type, double x) {
  return flushed(type, std::exp2(x));
}

int64_t phobos::wrapTo(ElementType type, int64_t value) {
  switch (type) {
  case ElementType::Bool: return value != 0;
  case ElementType::I32: return static_cast<int32_t>(static_cast<uint32_t>(value));
  default: return value;
  }
}

int64_t phobos::floatToInt(ElementType type, double value) {
  if (type == ElementType::Bool)
    return value != 0; // NaN is true, as in C
  if (std::isnan(value))
    return 0;
  double lo = type == ElementType::I32 ? double(INT32_MIN) : -9.2233720368547758e18;
  double hi = type == ElementType::I32 ? double(INT32_MAX) : 9.2233720368547748e18;
  value = std::trunc(value);
  if (value <= lo)
    return type == ElementType::I32 ? INT32_MIN : INT64_MIN;
  if (value >= hi)
    return type == ElementType::I32 ? INT32_MAX : INT64_MAX;
  return static_cast<int64_t>(value);
}

static const llvm::fltSemantics &semanticsOf(ElementType type) {
  switch (type) {
  case ElementType::F16: return llvm::APFloat::IEEEhalf();
  case ElementType::BF16: return llvm::APFloat::BFloat();
  case ElementType::F32: return llvm::APFloat::IEEEsingle();
  default: return llvm::APFloat::IEEEdouble();
  }
}

llvm::Expected<ElementValue> phobos::parseElementValue(ElementType type,
                                                       llvm::StringRef text) {
  auto refuse = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  ElementValue result;
  if (!isFloat(type)) {
    int64_t low = type == ElementType::I64   ? INT64_MIN
                  : type == ElementType::I32 ? INT32_MIN
                                             : 0;
    int64_t high = type == ElementType::I64   ? INT64_MAX
                   : type == ElementType::I32 ? INT32_MAX
                                              : 1;
    std::string range =
        type == ElementType::Bool
            ? std::string("a bool is 0 or 1")
            : llvm::formatv("{0} holds integers in [{1}, {2}]", name(type),
                            low, high)
                  .str();
    if (!text.getAsInteger(10, result.i)) {
      if (result.i < low || result.i > high)
        return refuse("'" + text + "' is out of range: " + range);
      result.f = static_cast<double>(result.i);
      return result;
    }
    // A float form must be exactly an integer: 1e3, not 2.5 or 1e400.
    llvm::APFloat value(llvm::APFloat::IEEEdouble());
    llvm::Expected<llvm::APFloat::opStatus> status =
        value.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      return refuse("'" + text + "' is not a number");
    }
    if (!value.isFinite() || !value.isInteger() ||
        *status != llvm::APFloat::opOK)
      return refuse("'" + text + "' is not exactly an integer (" + range +
                    ")");
    double exact = value.convertToDouble();
    // 2^63 itself is the first double beyond int64.
    if (exact < static_cast<double>(low) || exact >= 0x1p63 ||
        exact > static_cast<double>(high))
      return refuse("'" + text + "' is out of range: " + range);
    result.i = static_cast<int64_t>(exact);
    result.f = exact;
    return result;
  }
  const llvm::fltSemantics &semantics = semanticsOf(type);
  llvm::APFloat value(semantics);
  llvm::Expected<llvm::APFloat::opStatus> status =
      value.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
  if (!status) {
    llvm::consumeError(status.takeError());
    return refuse("'" + text + "' is not a number");
  }
  if (*status & llvm::APFloat::opOverflow) {
    llvm::SmallString<32> largest;
    llvm::APFloat::getLargest(semantics).toString(largest);
    return refuse("'" + text + "' does not fit in " + name(type) +
                  " (its largest finite value is " + largest + ")");
  }
  bool lost = false;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  result.f = value.convertToDouble();
  return result;
}

double phobos::loadFloat(ElementType type, const void *data, int64_t index) {
  switch (type) {
  case ElementType::F16:
    return halfToDouble(static_cast<const uint16_t *>(data)[index]);
  case ElementType::BF16:
    return bf16ToDouble(static_cast<const uint16_t *>(data)[index]);
  case ElementType::F32:
    return static_cast<const float *>(data)[index];
  case ElementType::F64:
    return static_cast<const double *>(data)[index];
  default:
    return static_cast<double>(loadInt(type, data, index));
  }
}

int64_t phobos::loadInt(ElementType type, const void *data, int64_t index) {
  switch (type) {
  case ElementType::Bool: return static_cast<const uint8_t *>(data)[index] != 0;
  case ElementType::I32: return static_cast<const int32_t *>(data)[index];
  case ElementType::I64: return static_cast<const int64_t *>(data)[index];
  default: return floatToInt(ElementType::I64, loadFloat(type, data, index));
  }
}

void phobos::storeFloat(ElementType type, void *data, int64_t index,
                        double value) {
  switch (type) {
  case ElementType::F16:
    static_cast<uint16_t *>(data)[index] = doubleToHalf(value);
    return;
  case ElementType::BF16:
    static_cast<uint16_t *>(data)[index] = doubleToBF16(value);
    return;
  case ElementType::F32:
    static_cast<float *>(data)[index] = static_cast<float>(value);
    return;
  case ElementType::F64:
    static_cast<double *>(data)[index] = value;
    return;
  default:
    storeInt(type, data, index, floatToInt(type, value));
  }
}

void phobos::storeInt(ElementType type, void *data, int64_t index,
                      int64_t value) {
  switch (type) {
  case ElementType::Bool:
    static_cast<uint8_t *>(data)[index] = value != 0;
    return;
  case ElementType::I32:
    static_cast<int32_t *>(data)[index] = static_cast<int32_t>(wrapTo(type, value));
    return;
  case ElementType::I64:
    static_cast<int64_t *>(data)[index] = value;
    return;
  default:
    storeFloat(type, data, index, static_cast<double>(value));
  }
}
