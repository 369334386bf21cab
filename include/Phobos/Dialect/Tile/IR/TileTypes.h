//===- TileTypes.h - Types of the phobos dialect ----------------*- C++ -*-===//
//
// Tile and tensor types, the enumerations and attributes the ops use, and
// the broadcasting rule shared by the element-wise ops and the front end.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILETYPES_H
#define PHOBOS_DIALECT_TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include "Phobos/Dialect/Tile/IR/DistributedLayout.h"
#include "Phobos/Dialect/Tile/IR/TileEnums.h.inc"
#include "Phobos/Dialect/Tile/IR/TileAttrInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Phobos/Dialect/Tile/IR/TileOpsTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Phobos/Dialect/Tile/IR/TileAttrs.h.inc"

namespace phobos::tile {

/// The most elements a tile (or shared-memory buffer) may hold: far above
/// what fits on a GPU, low enough that every pass and the interpreter can
/// hold one. The front end enforces the same limit at the source.
inline constexpr int64_t kMaxTileElements = int64_t(1) << 24;
/// The most axes of a tile or tensor.
inline constexpr int64_t kMaxRank = 8;
/// The largest extent of a tensor axis: offsets and extents are i32.
inline constexpr int64_t kMaxTensorExtent = 2147483647;

/// Whether `type` may be the element type of a tile or tensor.
bool isValidElementType(mlir::Type type);

/// NumPy's broadcast of two shapes (right-aligned; extents of 1 stretch).
/// Returns false when an axis disagrees.
bool broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                     llvm::SmallVectorImpl<int64_t> &result);

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_IR_TILETYPES_H
