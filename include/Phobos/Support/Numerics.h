//===- Numerics.h - Element types and their rounding ------------*- C++ -*-===//
//
// The element types of Phobos tensors and tiles as plain C++ (no MLIR), how
// each is stored in memory, and rounding to them: what the interpreter, the
// host tensors of phobos-run and the references share.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_SUPPORT_NUMERICS_H
#define PHOBOS_SUPPORT_NUMERICS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace phobos {

/// An element type. Storage: f16 and bf16 as their 16-bit patterns, f32 as
/// float, f64 as double, i32/i64 as two's complement, bool as one byte 0/1.
enum class ElementType { Bool, I32, I64, F16, BF16, F32, F64 };

bool isFloat(ElementType type);
/// Bytes of one stored element.
unsigned byteWidth(ElementType type);
llvm::StringRef name(ElementType type);
std::optional<ElementType> parseElementType(llvm::StringRef name);

/// IEEE binary16, round to nearest even (overflow to infinity).
uint16_t doubleToHalf(double value);
double halfToDouble(uint16_t bits);
/// bfloat16 (8 significant bits, f32's exponents), round to nearest even.
uint16_t doubleToBF16(double value);
double bf16ToDouble(uint16_t bits);
/// TensorFloat-32: f32 with 10 mantissa bits, nearest, ties away from zero
/// (cvt.rna.tf32.f32).
double roundToTF32(double value);

/// `value` rounded to a float element type (identity for f64).
double roundTo(ElementType type, double value);
/// e^x as the GPU computes it for a float element type: in f32 through
/// `ex2.approx.ftz`, so a result below 2^-126 (x < -87.34) is flushed to 0
/// (as CUDA's `__expf` and FlashAttention do); the interpreter applies the
/// same flush. f64 is std::exp (the GPU rejects f64 exp).
double flushedExp(ElementType type, double x);
/// `value` wrapped to an integer element type (two's complement); bool is
/// `value != 0`.
int64_t wrapTo(ElementType type, int64_t value);
/// Float to integer: truncation toward zero, saturating; NaN is 0. To bool:
/// `value != 0` (NaN is true).
int64_t floatToInt(ElementType type, double value);

/// Reads element `index` of `data` as a double (floats) or an integer.
double loadFloat(ElementType type, const void *data, int64_t index);
int64_t loadInt(ElementType type, const void *data, int64_t index);
/// Writes element `index`; floats are rounded, integers wrapped.
void storeFloat(ElementType type, void *data, int64_t index, double value);
void storeInt(ElementType type, void *data, int64_t index, int64_t value);

} // namespace phobos

#endif // PHOBOS_SUPPORT_NUMERICS_H
