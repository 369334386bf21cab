//===- TileDialect.h - The phobos tile dialect ------------------*- C++ -*-===//
//
// Declares the `phobos` dialect class. Include TileOps.h for the ops,
// types and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILEDIALECT_H
#define PHOBOS_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "Phobos/Dialect/Tile/IR/TileOpsDialect.h.inc"

#endif // PHOBOS_DIALECT_TILE_IR_TILEDIALECT_H
