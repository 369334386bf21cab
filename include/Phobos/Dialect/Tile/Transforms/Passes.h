//===- Passes.h - Passes on the phobos tile dialect -------------*- C++ -*-===//

#ifndef PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_H
#define PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Dialect/Tile/Transforms/KernelMarks.h"

#include "mlir/Pass/Pass.h"

namespace phobos::tile {

/// On the loop tile-persistent makes: its CTA's walk over the grid's tiles.
inline constexpr llvm::StringLiteral kTileLoopAttrName = "phobos.tile_loop";
/// On the remainder loop tile-split-ragged-loops makes, when the main loop
/// before it differs from it only by the in-bounds promises of the ragged
/// accesses (no bound check of the body was folded).
inline constexpr llvm::StringLiteral kRaggedRemainderAttrName =
    "phobos.ragged_remainder";

#define GEN_PASS_DECL
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_H
