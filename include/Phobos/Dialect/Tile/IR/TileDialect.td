//===- TileDialect.td - The phobos tile dialect ------------*- tablegen -*-===//
//
// The `phobos` dialect: tiles, global tensors and the operations a Phobos
// kernel computes with, before any decision about threads or memory levels.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILEDIALECT_TD
#define PHOBOS_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "phobos";
  let cppNamespace = "::phobos::tile";
  let summary = "Tile-level operations of the Phobos kernel language";
  let description = [{
    The `phobos` dialect models a Phobos kernel as the source states it: a
    grid of CTAs, each computing on whole tiles (`!phobos.tile<128x64xf32>`)
    cut from global tensors (`!phobos.tensor<?x?xf32>`). Tiles are SSA values
    with value semantics; no operation names a thread. Control flow is `scf`,
    scalar arithmetic is `arith` and `math`.

    Slices of a tensor may run past its end: a `phobos.load` reads zero for
    elements outside the tensor and a `phobos.store` skips them. That masking
    is part of each memory operation's meaning, so passes may drop it only
    where they prove it unnecessary.

    `arith.select` is for scalars here: canonicalization turns an `if`
    whose branches only yield tiles into a select, and the dialect's
    canonicalizer makes that a `phobos.select`, which every layer knows.

    Layouts (which thread holds which element) are not part of this
    dialect's input: they are an optional encoding on the tile type that the
    GPU pipeline's layout-assignment pass attaches.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // PHOBOS_DIALECT_TILE_IR_TILEDIALECT_TD
