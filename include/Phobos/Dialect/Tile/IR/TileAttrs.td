//===- TileAttrs.td - Attributes of the phobos dialect -----*- tablegen -*-===//
//
// Enumerations used by the ops, and the attributes that record a kernel's
// @autotune / @cluster search space.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILEATTRS_TD
#define PHOBOS_DIALECT_TILE_IR_TILEATTRS_TD

include "Phobos/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "Phobos/Dialect/Tile/IR/TileAttrInterfaces.td"

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def Tile_AxisAttr : I32EnumAttr<"Axis", "a grid axis", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_CmpPredicateAttr : I32EnumAttr<"CmpPredicate", "a comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_ReduceKindAttr : I32EnumAttr<"ReduceKind", "a reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_DotPrecisionAttr : I32EnumAttr<"DotPrecision",
    "the precision a dot rounds its operands to", [
    I32EnumAttrCase<"ieee", 0>, I32EnumAttrCase<"tf32", 1>,
    I32EnumAttrCase<"f16", 2>, I32EnumAttrCase<"bf16", 3>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_DotKindAttr : I32EnumAttr<"DotKind",
    "the instructions that compute a dot", [
    I32EnumAttrCase<"fma", 0>, I32EnumAttrCase<"mma_sync", 1>,
    I32EnumAttrCase<"wgmma", 2>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_TurnStepAttr : I32EnumAttr<"TurnStep",
    "a step of the consumer warpgroups' turns", [
    I32EnumAttrCase<"start", 0>, I32EnumAttrCase<"take", 1>,
    I32EnumAttrCase<"give", 2>, I32EnumAttrCase<"finish", 3>
  ]> {
  let cppNamespace = "::phobos::tile";
}

// `@tensorcore`'s precision on a kernel: a DotPrecision other than `ieee`,
// by its name (the source spells it the same way).
def Tile_TensorcoreAttr : ConfinedAttr<StrAttr, [AttrConstraint<CPred<[{
    ::phobos::tile::symbolizeDotPrecision(
        ::llvm::cast<::mlir::StringAttr>($_self).getValue()).value_or(
        ::phobos::tile::DotPrecision::ieee) != ::phobos::tile::DotPrecision::ieee
  }]>, "one of \"f16\", \"tf32\" or \"bf16\"">]>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_TuneDimAttr : Tile_Attr<"TuneDim", "tune_dim"> {
  let summary = "one dimension of an @autotune or @cluster search space";
  let description = [{
    A named compile-time constant and the values it may take, in the order
    the source lists them (after expanding `[a, b]` bounds in doubling
    steps). The first value is the default variant's.

    Example: `#phobos.tune_dim<"TILE_M", [32, 64, 128]>`
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        ArrayRefParameter<"int64_t">:$values);
  let assemblyFormat = "`<` $name `,` `[` $values `]` `>`";
  let genVerifyDecl = 1;
}

def Tile_TuneSpaceAttr : TypedArrayAttrBase<Tile_TuneDimAttr,
                                            "a search space">;

//===----------------------------------------------------------------------===//
// Layouts: which thread of the CTA holds which element of a tile
//===----------------------------------------------------------------------===//

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked", [
    DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]> {
  let summary = "each thread holds small contiguous blocks of a tile";
  let description = [{
    Along each axis a thread holds `sizePerThread` consecutive elements, the
    lanes of a warp hold `threadsPerWarp` such runs side by side and the
    warps `warpsPerCTA` warp footprints; the pattern repeats to cover the
    tile. `order` lists the axes fastest first: lane and warp numbers run
    along `order[0]` first. Applied to a tile smaller than the footprint,
    positions wrap around (position mod extent), so threads hold copies; an
    axis of extent 1 is held by every thread along it, which makes
    broadcasting back to the full shape free.

    ```mlir
    #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8],
                    warpsPerCTA = [8, 1], order = [1, 0]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Warps the layout spreads over (the product of warpsPerCTA).
    unsigned getNumWarps() const;
  }];
}

def Tile_MmaLayoutAttr : Tile_Attr<"MmaLayout", "mma", [
    DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]> {
  let summary = "the accumulator layout of warp-level mma.sync m16n8";
  let description = [{
    The fragment ownership of `mma.sync.m16n8kK` (sm_80 and later): the
    tile is split into `warpsPerCTA[0] x warpsPerCTA[1]` warp blocks, each
    made of 16x8 fragments; in a fragment, lane `l` holds rows `l / 4` and
    `l / 4 + 8` at columns `2 * (l % 4)` and `2 * (l % 4) + 1`. Rank 2.

    ```mlir
    #phobos.mma<warpsPerCTA = [4, 2]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let assemblyFormat = "`<` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `>`";
  let genVerifyDecl = 1;
}

def Tile_SliceLayoutAttr : Tile_Attr<"SliceLayout", "slice", [
    DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]> {
  let summary = "a parent layout with one axis removed";
  let description = [{
    The layout of a tile that broadcasts along axis `dim` of a tile in
    `parent`: each remaining axis is distributed as in `parent`, and the
    threads that `parent` spreads along `dim` hold copies. What a rank-1
    tile needs to broadcast against a rank-2 one for free.

    ```mlir
    #phobos.slice<dim = 0, parent = #phobos.blocked<...>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def Tile_SharedLayoutAttr : Tile_Attr<"SharedLayout", "shared"> {
  let summary = "how a tile is laid out in shared memory";
  let description = [{
    Elements are stored with `order[0]` the contiguous axis (so
    `order = [0, 1]` stores a matrix transposed); a *row* is a run along
    that axis, and rows follow each other in the order of the other axes.
    Two ways keep the rows that one instruction touches in different banks:

    - `padding`: each row is followed by `padding` unused elements.
    - `swizzle = [vec, perPhase, maxPhase]`: the row is cut into units of
      `vec` elements (16 bytes, what one cp.async, vector access or
      ldmatrix row moves) and row `r` stores unit `u` at position
      `u xor ((r / perPhase) mod maxPhase)`. No memory is added; a unit
      stays whole, so 16-byte accesses stay 16-byte accesses.

    - `atom`: the layout Hopper's warpgroup MMA (wgmma) reads through a
      matrix descriptor. The contiguous axis is cut into *atoms* of `atom`
      elements (32, 64 or 128 bytes: the swizzle mode), and each atom
      column is stored whole, all its rows one after the other, before the
      next: element (r, c) sits at `(c / atom) * rows * atom + r * atom +
      (c mod atom)`, swizzled as above within its atom. The swizzle then
      equals the hardware's on absolute addresses, so such a buffer starts
      on a 1024-byte boundary (tile-allocate-shared).

    ```mlir
    #phobos.shared<order = [0, 1], padding = 4>
    #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4]>
    #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
    ```

    `tile-promote-shared` pads (or, for wgmma operands, chooses the atom
    layout); `tile-swizzle-shared` replaces the padding by a swizzle where
    its bank-conflict model says that is no worse.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$order,
                        "unsigned":$padding,
                        DefaultValuedParameter<"unsigned", "1">:$vec,
                        DefaultValuedParameter<"unsigned", "1">:$perPhase,
                        DefaultValuedParameter<"unsigned", "1">:$maxPhase,
                        DefaultValuedParameter<"unsigned", "0">:$atom);
  // `swizzle = [...]` is printed whole when any of its values is not 1,
  // `atom = N` when it is set.
  let hasCustomAssemblyFormat = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<unsigned>":$order, "unsigned":$padding), [{
      return $_get($_ctxt, order, padding, 1, 1, 1, 0);
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether rows are swizzled (else padded, or neither).
    bool isSwizzled() const { return getMaxPhase() > 1; }
    /// Elements from the start of one row to the start of the next (within
    /// an atom when the layout has atoms).
    int64_t getRowLength(::llvm::ArrayRef<int64_t> shape) const;
    /// Bytes the buffer's start must be aligned to: 1024 for atom layouts
    /// (the hardware swizzle repeats every 1024 bytes), else 16.
    int64_t getBaseAlignment() const { return getAtom() ? 1024 : 16; }
    /// The element index of `coords` (in the buffer's axis order) from the
    /// buffer's start: what the GPU lowering computes in registers.
    int64_t getOffset(::llvm::ArrayRef<int64_t> shape,
                      ::llvm::ArrayRef<int64_t> coords) const;
    /// The alignment unit of vector accesses along the contiguous axis: an
    /// access of w elements starting at a multiple of w is contiguous in
    /// memory when w divides this (the row length, or the swizzle unit).
    int64_t getVectorUnit(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

#endif // PHOBOS_DIALECT_TILE_IR_TILEATTRS_TD
