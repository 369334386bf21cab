//===- TileDialect.cpp - The phobos tile dialect --------------------------===//
//
// Registers the dialect's ops, types and attributes.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace phobos::tile;

#include "Phobos/Dialect/Tile/IR/TileOpsDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Phobos/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
