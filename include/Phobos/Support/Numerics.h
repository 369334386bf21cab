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
#include "llvm/Support/Error.h"

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
/// 2^x under the same flush (x < -126 gives 0).
double flushedExp2(ElementType type, double x);
/// `value` wrapped to an integer element type (two's complement); bool is
/// `value != 0`.
int64_t wrapTo(ElementType type, int64_t value);
/// Float to integer: truncation toward zero, saturating; NaN is 0. To bool:
/// `value != 0` (NaN is true).
int64_t floatToInt(ElementType type, double value);

/// A value of an element type read from text (an option, a job file, a
/// literal): what parseElementValue gives.
struct ElementValue {
  /// The value as a double: exact for every float type, and for integers
  /// up to 2^53.
  double f = 0;
  /// Integer types and bool: the exact value.
  int64_t i = 0;
};

/// `text` as a value of `type`, or an error saying why not (no prefix: the
/// caller names the option or the scalar). Float types are rounded once,
/// from the decimal text straight to the type (never through a double
/// first); `inf`, `-inf` and `nan` are accepted, a finite number beyond the
/// type's range is an error (it would become an infinity). Integers are
/// exact: decimal digits, or a float form that is an integer (`1e3`), in
/// the type's range; bool is 0 or 1.
llvm::Expected<ElementValue> parseElementValue(ElementType type,
                                               llvm::StringRef text);

/// Reads element `index` of `data` as a double (floats) or an integer.
double loadFloat(ElementType type, const void *data, int64_t index);
int64_t loadInt(ElementType type, const void *data, int64_t index);
/// Writes element `index`; floats are rounded, integers wrapped.
void storeFloat(ElementType type, void *data, int64_t index, double value);
void storeInt(ElementType type, void *data, int64_t index, int64_t value);

} // namespace phobos

#endif // PHOBOS_SUPPORT_NUMERICS_H
