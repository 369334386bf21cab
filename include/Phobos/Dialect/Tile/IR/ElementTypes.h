//===- ElementTypes.h - Tile element types as runtime element types -*- C++ -*-===//
//
// The one mapping between the MLIR types the phobos dialect allows as tile
// and tensor elements (i1, i32, i64, f16, bf16, f32, f64) and Phobos's
// ElementType (Phobos/Support/Numerics.h), which the front end, the
// interpreter, the launch contract and the runtime share. Header-only: the
// dialect library itself does not depend on Phobos's support library.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_ELEMENTTYPES_H
#define PHOBOS_DIALECT_TILE_IR_ELEMENTTYPES_H

#include "Phobos/Dialect/Tile/IR/TileTypes.h"
#include "Phobos/Support/Numerics.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace phobos::tile {

/// The element type of `type` (a scalar, or the elements of a tile or
/// tensor); `index` counts as i64, as it is held; nullopt for any other.
inline std::optional<ElementType> getElementType(mlir::Type type) {
  if (auto tile = llvm::dyn_cast<TileType>(type))
    type = tile.getElementType();
  else if (auto tensor = llvm::dyn_cast<GlobalTensorType>(type))
    type = tensor.getElementType();
  if (type.isInteger(1)) return ElementType::Bool;
  if (type.isInteger(32)) return ElementType::I32;
  if (type.isInteger(64) || type.isIndex()) return ElementType::I64;
  if (type.isF16()) return ElementType::F16;
  if (type.isBF16()) return ElementType::BF16;
  if (type.isF32()) return ElementType::F32;
  if (type.isF64()) return ElementType::F64;
  return std::nullopt;
}

/// The MLIR type of `element`.
inline mlir::Type getMLIRType(mlir::MLIRContext *context, ElementType element) {
  mlir::Builder builder(context);
  switch (element) {
  case ElementType::Bool: return builder.getI1Type();
  case ElementType::I32: return builder.getI32Type();
  case ElementType::I64: return builder.getI64Type();
  case ElementType::F16: return builder.getF16Type();
  case ElementType::BF16: return builder.getBF16Type();
  case ElementType::F32: return builder.getF32Type();
  case ElementType::F64: return builder.getF64Type();
  }
  return {};
}

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_IR_ELEMENTTYPES_H
