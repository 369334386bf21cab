//===- Passes.h - Passes on the phobos tile dialect -------------*- C++ -*-===//

#ifndef PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_H
#define PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Pass/Pass.h"

namespace phobos::tile {

#define GEN_PASS_DECL
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_H
