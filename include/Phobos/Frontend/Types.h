//===- Types.h - Types of Phobos values in the front end --------*- C++ -*-===//
//
// The type of a value as Sema sees it (a scalar, a tile or a tensor, with
// the element kind and the static shape of the bound variant) and the
// promotion rules of mixed arithmetic, shared by Sema and MLIRGen so that
// both apply the same conversions.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_TYPES_H
#define PHOBOS_FRONTEND_TYPES_H

#include "Phobos/Support/Numerics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace phobos::frontend {

/// The element kinds of the language are the runtime's element types.
using ScalarKind = phobos::ElementType;
using phobos::isFloat;

bool isInteger(ScalarKind kind); ///< i32 or i64 (not bool).
unsigned bitWidth(ScalarKind kind);
inline llvm::StringRef spelling(ScalarKind kind) { return phobos::name(kind); }
/// The scalar type a name spells (`f32`, `bool`, ...), if any; the
/// runtime's alias `i1` is not a Phobos type.
std::optional<ScalarKind> parseScalarKind(llvm::StringRef name);

/// The element kind of mixed arithmetic: floats win over integers, the wider
/// of two floats or two integers wins, f16 with bf16 gives f32. Bool mixes
/// with nothing but bool. Returns nullopt for bool with a number.
std::optional<ScalarKind> promote(ScalarKind lhs, ScalarKind rhs);

/// Whether assignment or a store may convert `from` to `to` implicitly:
/// float to float, integer to float and integer widening; never float to
/// integer, never integer narrowing, never to or from bool (unless equal).
bool isImplicitlyConvertible(ScalarKind from, ScalarKind to);

/// The type of a value.
struct Type {
  enum class Kind { Invalid, Scalar, Tile, Tensor };

  Kind kind = Kind::Invalid;
  ScalarKind element = ScalarKind::F32;
  /// Tile extents, or tensor extents with kDynamic for dims bound at launch.
  llvm::SmallVector<int64_t, 4> shape;

  static constexpr int64_t kDynamic = INT64_MIN;

  static Type invalid() { return Type(); }
  static Type scalar(ScalarKind element);
  static Type tile(ScalarKind element, llvm::ArrayRef<int64_t> shape);
  static Type tensor(ScalarKind element, llvm::ArrayRef<int64_t> shape);

  bool isInvalid() const { return kind == Kind::Invalid; }
  bool isScalar() const { return kind == Kind::Scalar; }
  bool isTile() const { return kind == Kind::Tile; }
  bool isTensor() const { return kind == Kind::Tensor; }
  /// A scalar or a tile (something arithmetic applies to).
  bool isValue() const { return isScalar() || isTile(); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numElements() const;

  /// The same kind and shape with another element.
  Type withElement(ScalarKind newElement) const;

  bool operator==(const Type &other) const {
    return kind == other.kind && element == other.element &&
           shape == other.shape;
  }
  bool operator!=(const Type &other) const { return !(*this == other); }

  /// As the source spells it: `f32`, `tile<f32>[64, 64]`, `tensor<f16>[?, 64]`.
  std::string str() const;
};

/// `[64, 1]`
std::string shapeString(llvm::ArrayRef<int64_t> shape);

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_TYPES_H
