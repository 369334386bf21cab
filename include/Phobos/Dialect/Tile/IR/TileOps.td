//===- TileOps.td - Operations of the phobos dialect -------*- tablegen -*-===//
//
// The kernel, grid and tensor queries, slice loads and stores with their
// masking semantics, element-wise tile arithmetic with broadcasting, and
// the structured tile operations (dot, reductions, cumsum, tril, ...).
//
// Why this file is long: it is one dialect's ops, the one file
// add_mlir_dialect turns into the op classes and docs/dialects/phobos.md;
// each op is a self-contained record (its arguments, verifier hooks and
// description), grouped below by the sections above, and none shares code
// with another that a split would separate.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILEOPS_TD
#define PHOBOS_DIALECT_TILE_IR_TILEOPS_TD

include "Phobos/Dialect/Tile/IR/TileDialect.td"
include "Phobos/Dialect/Tile/IR/TileTypes.td"
include "Phobos/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// The CTA's shared memory: buffers written by `local_alloc` and read by
/// `local_load` and by dots on promoted operands. tile-insert-barriers
/// orders accesses to it.
def Tile_SharedMemory : Resource<"::phobos::tile::SharedMemoryResource">;

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    FunctionOpInterface, IsolatedFromAbove, SingleBlock,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>
  ]> {
  let summary = "a Phobos kernel: one variant, run as a grid of CTAs";
  let description = [{
    A kernel bound to one `@autotune` variant. Its arguments are global
    tensors (`!phobos.tensor`) and scalars passed by value; it returns
    nothing. The body runs once per CTA of the grid and ends in
    `phobos.return`.

    The source's attributes are kept on the op:
    - `autotune` / `cluster`: the search spaces, dimension by dimension;
    - `variant`: the value bound to each `@autotune` name in this body;
    - `max_threads`, `min_blocks`, `max_regs`: `@launch` (CTA size default
      256);
    - `pipeline` (`@pipeline`) and `pipeline_stages` (`@pipeline(N)`);
      `warp_specialize` (`@warp_specialize`: a producer warpgroup issues
      the pipeline's TMA copies, tile-warp-specialize);
      `persistent` (`@persistent`: as many CTAs as the GPU holds at once
      loop over the grid's tiles, tile-persistent);
      `tensorcore` (`"f16"`, `"tf32"` or `"bf16"`: the precision
      `dot` rounds f32 operands to),
      `aligned` (dim name -> the multiple the launch promises);
    - `unknown_attributes`: attributes the front end did not recognise.

    Every argument carries `phobos.name`, its name in the source (the
    printer uses it for the argument's SSA name), and each tensor argument
    `phobos.dims`, the source names of its extents; tensors that share a
    name must agree at launch.

    Example:

    ```mlir
    phobos.kernel @add(%a: !phobos.tensor<?xf32> {phobos.dims = ["N"], phobos.name = "a"},
                       %c: !phobos.tensor<?xf32> {phobos.dims = ["N"], phobos.name = "c"})
        attributes {autotune = [#phobos.tune_dim<"BLOCK", [1024]>],
                    variant = {BLOCK = 1024 : i64}} {
      phobos.return
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs,
    OptionalAttr<Tile_TuneSpaceAttr>:$autotune,
    OptionalAttr<Tile_TuneSpaceAttr>:$cluster,
    OptionalAttr<DictionaryAttr>:$variant,
    OptionalAttr<ConfinedAttr<I32Attr, [IntPositive]>>:$max_threads,
    OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$min_blocks,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<16>, IntMaxValue<255>]>>:$max_regs,
    UnitAttr:$pipeline,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<8>]>>:$pipeline_stages,
    UnitAttr:$warp_specialize,
    UnitAttr:$persistent,
    OptionalAttr<Tile_TensorcoreAttr>:$tensorcore,
    OptionalAttr<DictionaryAttr>:$aligned,
    OptionalAttr<StrArrayAttr>:$unknown_attributes
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type)>
  ];
  let extraClassDeclaration = [{
    /// The attribute name that lists a tensor argument's dim names.
    static constexpr ::llvm::StringLiteral kDimsAttrName = "phobos.dims";
    /// The attribute name of an argument's source name.
    static constexpr ::llvm::StringLiteral kNameAttrName = "phobos.name";
    /// Set by tile-allocate-shared: the bytes of dynamic shared memory the
    /// kernel needs (kept on the lowered gpu.func for the launch contract)
    /// and the byte offset of its scratch region.
    static constexpr ::llvm::StringLiteral kSharedBytesAttrName =
        "phobos.shared_bytes";
    static constexpr ::llvm::StringLiteral kScratchOffsetAttrName =
        "phobos.scratch_offset";
    /// Set by tile-insert-barriers: the kernel's barriers are placed.
    static constexpr ::llvm::StringLiteral kBarriersAttrName =
        "phobos.barriers";

    /// The source name of argument `index` (`arg<index>` when unnamed).
    std::string getArgName(unsigned index);

    /// Where the source promised the `aligned` multiple of `dim`, so that a
    /// launch that breaks it is refused at the user's line; null for a
    /// promise without a place (a specialisation's). The front end keeps
    /// the places in the metadata of the kernel's fused location
    /// (withAlignedPromiseLocs), where printing the IR without debug info
    /// shows no file names and the kernel's line stays its own.
    ::mlir::LocationAttr getAlignedPromiseLoc(::llvm::StringRef dim);
    /// `loc` carrying `places`, a dictionary of dim name -> location.
    static ::mlir::Location withAlignedPromiseLocs(::mlir::Location loc,
                                                   ::mlir::DictionaryAttr places);

    /// The precision `@tensorcore` asks f32 dots to round to, if any.
    std::optional<::phobos::tile::DotPrecision> getTensorcorePrecision() {
      if (std::optional<::llvm::StringRef> name = getTensorcore())
        return ::phobos::tile::symbolizeDotPrecision(*name);
      return std::nullopt;
    }

    /// The CTA size: `@launch`'s first argument, 256 when absent. The
    /// tiles are laid out over these threads.
    int64_t getCtaSize() {
      return getMaxThreads() ? static_cast<int64_t>(*getMaxThreads()) : 256;
    }

    /// The threads a launch starts: the CTA size, and a producer warpgroup
    /// when the kernel has a `phobos.warp_specialize`.
    int64_t getLaunchThreads();

    /// How the grid follows from the launch (what the launch contract
    /// infers): for each axis, the (tensor argument, axis, divisor) of every
    /// load or store offset `block_id(axis) * divisor`; the axis's extent is
    /// the largest ceil(extent / divisor). `axisUsed[a]` says whether the
    /// body reads axis a's block index at all.
    struct GridTerm {
      unsigned argument;
      unsigned tensorAxis;
      int64_t divisor;
    };
    void getGridTerms(std::array<::llvm::SmallVector<GridTerm>, 3> &terms,
                      std::array<bool, 3> &axisUsed);

    /// The source names of tensor argument `index`'s extents, or an empty
    /// list when the argument is not a tensor or has no names.
    ::llvm::SmallVector<::llvm::StringRef> getArgDimNames(unsigned index);

    //===------------------------------------------------------------------===//
    // FunctionOpInterface
    //===------------------------------------------------------------------===//
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [
    Pure, HasParent<"KernelOp">, ReturnLike, Terminator
  ]> {
  let summary = "ends a kernel's body";
  let description = [{
    Terminates the body of a `phobos.kernel`. Kernels return nothing; their
    results are the tensors they store to.

    ```mlir
    phobos.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Grid and tensor queries
//===----------------------------------------------------------------------===//

def Tile_BlockIdOp : Tile_Op<"block_id", [Pure]> {
  let summary = "this CTA's index on a grid axis";
  let description = [{
    `ctx.block.x` (and `program_id(0)`) in the source: the index of the
    running CTA along `axis`, from 0 to the grid's extent minus one.

    With `group G` (x and y only; `tile-group-blocks` sets it on a GEMM's
    grid) the indices are those of the CTA in *grouped order*: with `pid =
    y * gx + x` the position in the order the hardware starts CTAs, groups
    of `G` x-values (the last one smaller) take every y in turn, x fastest:
    `first = pid / (G * gy) * G`, `rows = min(gx - first, G)`, `x' = first
    + pid % (G * gy) % rows`, `y' = pid % (G * gy) / rows`. It is a
    bijection of the grid, so every CTA still runs once; consecutive CTAs
    share a few tile rows of A and tile columns of B (Triton's
    `GROUP_SIZE_M`).

    ```mlir
    %pm = phobos.block_id x
    %pn = phobos.block_id y group 8
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntPositive]>>:$group);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis (`group` $group^)? attr-dict";
  let builders = [
    OpBuilder<(ins "::phobos::tile::Axis":$axis), [{
      build($_builder, $_state, axis, ::mlir::IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// (x', y') of the CTA at (x, y) of a gx x gy grid in grouped order.
    static std::pair<int64_t, int64_t> groupedIndex(int64_t x, int64_t y,
                                                    int64_t gx, int64_t gy,
                                                    int64_t group);
  }];
}

def Tile_TileCoordOp : Tile_Op<"tile_coord", [Pure]> {
  let summary = "a tile's index on a grid axis, in a persistent kernel";
  let description = [{
    In a kernel made persistent (`tile-persistent`), the index along `axis`
    of the tile numbered `tile` in a grid of `gx` by `gy` (by any number of
    z) tiles: what `phobos.block_id` of the same axis and group is in the
    CTA that would run that tile in the grid the source describes. Tiles
    are numbered x fastest (`tile = (z * gy + y) * gx + x`); with `group G`
    the order is then relabelled as `BlockIdOp::groupedIndex` describes.

    ```mlir
    %m = phobos.tile_coord x of %t in %gx, %gy group 8
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis, I32:$tile, I32:$gx, I32:$gy,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntPositive]>>:$group);
  let results = (outs I32:$result);
  let assemblyFormat =
      "$axis `of` $tile `in` $gx `,` $gy (`group` $group^)? attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The index on `axis` of tile `tile` (the verifier's rules hold).
    static int64_t evaluate(::phobos::tile::Axis axis, int64_t tile,
                            int64_t gx, int64_t gy,
                            std::optional<int64_t> group);
  }];
}

def Tile_GridDimOp : Tile_Op<"grid_dim", [Pure]> {
  let summary = "the number of CTAs on a grid axis";
  let description = [{
    `ctx.grid.x` in the source: the grid's extent along `axis` (Triton's
    `num_programs`).

    ```mlir
    %n = phobos.grid_dim y
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "an extent of a tensor argument";
  let description = [{
    The extent of `tensor` along axis `index`, as an `i32` (the index width
    of a Phobos kernel). A static extent folds to a constant.

    ```mlir
    %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$index);
  let results = (outs I32:$result);
  let assemblyFormat = "$tensor `[` $index `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "reads a slice of a tensor into a tile, masking ragged edges";
  let description = [{
    Reads the slice of `tensor` that starts at `offsets` (one `i32` per
    tensor axis) and has the result tile's extents. Axes listed in
    `point_axes` are single points: they take no extent and do not appear
    in the tile's shape (`Q[bh, row :+ BR, :]` is a rank-2 tile of a rank-3
    tensor).

    Masking is part of the meaning: an element whose index on any axis lies
    outside `[0, extent)` of the tensor reads as zero. A point axis out of
    range makes every element read zero. `in_bounds`, when present, holds
    one flag per tensor axis; a `true` flag is a proof (by `@aligned`, by
    static shapes or by a pass) that the slice never leaves the tensor on
    that axis, so the mask there can be dropped.

    ```mlir
    %a = phobos.load %A[%m0, %k0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
    %q = phobos.load %Q[%bh, %r, %c0] {point_axes = array<i64: 0>}
        : !phobos.tensor<?x?x64xf32> -> !phobos.tile<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, Variadic<I32>:$offsets,
                       DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$point_axes,
                       OptionalAttr<DenseBoolArrayAttr>:$in_bounds);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $tensor `[` $offsets `]` attr-dict `:` qualified(type($tensor)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes a tile into a slice of a tensor, skipping ragged edges";
  let description = [{
    Writes `value` to the slice of `tensor` that starts at `offsets`, with
    the tile's extents on the axes not listed in `point_axes` (as for
    `phobos.load`). Elements whose index lies outside the tensor are not
    written; nothing else is touched. The tile's element type is the
    tensor's (the front end inserts the rounding cast).

    ```mlir
    phobos.store %c, %C[%m0, %n0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$value, Tile_AnyTensor:$tensor,
                       Variadic<I32>:$offsets,
                       DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$point_axes,
                       OptionalAttr<DenseBoolArrayAttr>:$in_bounds);
  let assemblyFormat = [{
    $value `,` $tensor `[` $offsets `]` attr-dict `:` qualified(type($value)) `,` qualified(type($tensor))
  }];
  let hasVerifier = 1;
}

def Tile_LoadScalarOp : Tile_Op<"load_scalar", [
    MemoryEffects<[MemRead]>,
    TypesMatchWith<"result is the tensor's element type", "tensor", "result",
                   "::llvm::cast<::phobos::tile::GlobalTensorType>($_self).getElementType()">
  ]> {
  let summary = "reads one element of a tensor";
  let description = [{
    `A[i, j]` with a point on every axis. An index outside the tensor reads
    zero on the GPU; the interpreter reports it as an error at the source
    line, since it is almost always a bug.

    ```mlir
    %x = phobos.load_scalar %A[%i, %j] : !phobos.tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, Variadic<I32>:$indices);
  let results = (outs Tile_Scalar:$result);
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

def Tile_StoreScalarOp : Tile_Op<"store_scalar", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value is the tensor's element type", "tensor", "value",
                   "::llvm::cast<::phobos::tile::GlobalTensorType>($_self).getElementType()">
  ]> {
  let summary = "writes one element of a tensor";
  let description = [{
    `A[i, j] = x` with a point on every axis. An index outside the tensor
    writes nothing on the GPU; the interpreter reports it as an error.

    ```mlir
    phobos.store_scalar %x, %A[%i, %j] : !phobos.tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$value, Tile_AnyTensor:$tensor,
                       Variadic<I32>:$indices);
  let assemblyFormat = "$value `,` $tensor `[` $indices `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "adds a tile to a slice of a tensor, each element atomically";
  let description = [{
    `atomic_add(T[subscripts], value)` in the source. For every element of
    the slice (described as for `phobos.store`: `offsets`, `point_axes`,
    `in_bounds`) that lies inside the tensor, `T[i] += value[i]` happens
    as one indivisible read-modify-write, so CTAs that add to the same
    elements lose no update. Elements outside the tensor are skipped. With
    a point on every axis (`point_axes` lists them all) `value` is a
    scalar and one element is updated once per CTA.

    The order in which CTAs add is unspecified, so float sums may differ in
    their last bits from run to run; the additions are relaxed (they order
    nothing else). Element types: `f32`, `f64`, `i32`, `i64`.

    ```mlir
    phobos.atomic_add %dw, %DW[%g, %c0] {point_axes = array<i64: 0>}
        : !phobos.tile<256xf32>, !phobos.tensor<?x?xf32>
    phobos.atomic_add %one, %Count[%i] {point_axes = array<i64: 0>}
        : i32, !phobos.tensor<?xi32>
    ```
  }];
  let arguments = (ins Tile_TileOrScalar:$value, Tile_AnyTensor:$tensor,
                       Variadic<I32>:$offsets,
                       DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$point_axes,
                       OptionalAttr<DenseBoolArrayAttr>:$in_bounds);
  let assemblyFormat = [{
    $value `,` $tensor `[` $offsets `]` attr-dict `:` type($value) `,` qualified(type($tensor))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile construction
//===----------------------------------------------------------------------===//

def Tile_FillOp : Tile_Op<"fill", [
    Pure,
    TypesMatchWith<"value is the tile's element type", "result", "value",
                   "::llvm::cast<::phobos::tile::TileType>($_self).getElementType()">
  ]> {
  let summary = "a tile with every element equal to a scalar";
  let description = [{
    `var acc: tile<f32>[64, 64] = 0.0` in the source.

    ```mlir
    %acc = phobos.fill %zero : !phobos.tile<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$value);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
}

def Tile_ArangeOp : Tile_Op<"arange", [Pure]> {
  let summary = "the tile 0, 1, ..., n-1";
  let description = [{
    `arange(n)` in the source: a rank-1 `i32` tile holding its own indices,
    used to build masks (`cols < N`) and positions.

    ```mlir
    %cols = phobos.arange : !phobos.tile<128xi32>
    ```
  }];
  let results = (outs Tile_TileOf<I32>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "reinterprets a tile's elements, row-major, in another shape";
  let description = [{
    `reshape(t, d0, d1)` in the source. The element count and type stay;
    the row-major order of the elements stays.

    ```mlir
    %col = phobos.reshape %r : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "stretches a tile to a larger shape, NumPy's way";
  let description = [{
    Broadcasts `source` to the result's shape: axes are right-aligned, an
    extent of 1 stretches, missing leading axes are added. What assigning a
    `[R, 1]` tile to a `[R, C]` slice or variable does.

    ```mlir
    %b = phobos.broadcast %m : !phobos.tile<64x1xf32> -> !phobos.tile<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Element-wise arithmetic
//===----------------------------------------------------------------------===//

// Binary ops take tiles or scalars of one element type, with NumPy
// broadcasting (right-aligned; extents of 1 stretch; scalars stretch to any
// shape). At least one operand is a tile.
class Tile_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, !listconcat(traits, [
        Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let hasVerifier = 1;
}

class Tile_BinaryOp<string mnemonic, string what, string srcOp,
                    list<Trait> traits = []>
    : Tile_ElementwiseOp<mnemonic, traits> {
  let summary = "element-wise " # what # " with broadcasting";
  let description = [{
    `a }] # srcOp # [{ b` on tiles: the operands are tiles or scalars of the
    same element type, broadcast NumPy's way (right-aligned; an extent of 1
    stretches; a scalar stretches to any shape). The result is a tile of
    the broadcast shape.

    ```mlir
    %r = phobos.}] # mnemonic # [{ %t, %s : !phobos.tile<64x1xf32>, !phobos.tile<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_TileOrScalar:$lhs, Tile_TileOrScalar:$rhs);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))";
}

def Tile_AddOp : Tile_BinaryOp<"add", "addition", "+", [Commutative]> {
  let hasCanonicalizer = 1;
}
def Tile_SubOp : Tile_BinaryOp<"sub", "subtraction", "-">;
def Tile_MulOp : Tile_BinaryOp<"mul", "multiplication", "*", [Commutative]>;
def Tile_DivOp : Tile_BinaryOp<"div",
    "division (integers truncate toward zero)", "/">;
def Tile_RemOp : Tile_BinaryOp<"rem",
    "remainder (the sign of the dividend, as in C)", "%">;
def Tile_MaxOp : Tile_BinaryOp<"max", "maximum (NaN-propagating)", "tmax",
                               [Commutative]>;
def Tile_MinOp : Tile_BinaryOp<"min", "minimum (NaN-propagating)", "tmin",
                               [Commutative]>;
def Tile_AndOp : Tile_BinaryOp<"and", "logical and of booleans", "&&",
                               [Commutative]>;
def Tile_OrOp : Tile_BinaryOp<"or", "logical or of booleans", "||",
                              [Commutative]>;

def Tile_CmpOp : Tile_ElementwiseOp<"cmp"> {
  let summary = "element-wise comparison with broadcasting";
  let description = [{
    Compares two tiles or scalars of the same element type, broadcast as for
    `phobos.add`, and gives a tile of `i1`. Float comparisons are ordered
    (false when either side is NaN), except `ne`, which is true then.

    ```mlir
    %m = phobos.cmp lt, %cols, %n : !phobos.tile<128xi32>, i32
    ```
  }];
  let arguments = (ins Tile_CmpPredicateAttr:$predicate,
                       Tile_TileOrScalar:$lhs, Tile_TileOrScalar:$rhs);
  let results = (outs Tile_BoolTile:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))
  }];
}

def Tile_SelectOp : Tile_ElementwiseOp<"select"> {
  let summary = "element-wise choice with broadcasting";
  let description = [{
    `where(cond, a, b)` in the source: `a` where `cond` holds, else `b`.
    All three broadcast together; `a` and `b` share an element type.

    ```mlir
    %s = phobos.select %m, %x, %neg_inf
        : !phobos.tile<128xi1>, !phobos.tile<64x128xf32>, f32
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_BoolTile, I1]>:$condition,
                       Tile_TileOrScalar:$true_value,
                       Tile_TileOrScalar:$false_value);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    qualified(type($condition)) `,` qualified(type($true_value)) `,` qualified(type($false_value))
  }];
}

class Tile_UnaryOp<string mnemonic, Type operandType, string what>
    : Tile_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "element-wise " # what;
  let description = [{
    Applies }] # what # [{ to every element of a tile.

    ```mlir
    %r = phobos.}] # mnemonic # [{ %t : !phobos.tile<64x64xf32>
    ```
  }];
  let arguments = (ins operandType:$operand);
  let results = (outs operandType:$result);
  let assemblyFormat = "$operand attr-dict `:` qualified(type($result))";
}

def Tile_NegOp : Tile_UnaryOp<"neg", Tile_NumericTile, "negation">;
def Tile_NotOp : Tile_UnaryOp<"not", Tile_BoolTile, "logical negation">;
def Tile_AbsOp : Tile_UnaryOp<"abs", Tile_NumericTile, "absolute value">;
def Tile_ExpOp : Tile_UnaryOp<"exp", Tile_FloatTile,
    "e^x (the GPU may use the ex2.approx path, about 2 ulp)">;
def Tile_Exp2Op : Tile_UnaryOp<"exp2", Tile_FloatTile,
    "2^x (the GPU uses ex2.approx, about 2 ulp)">;
def Tile_LogOp : Tile_UnaryOp<"log", Tile_FloatTile, "the natural logarithm">;
def Tile_Log2Op : Tile_UnaryOp<"log2", Tile_FloatTile,
    "the base-2 logarithm (the GPU uses lg2.approx)">;
def Tile_SqrtOp : Tile_UnaryOp<"sqrt", Tile_FloatTile, "the square root">;
def Tile_RsqrtOp : Tile_UnaryOp<"rsqrt", Tile_FloatTile,
    "the reciprocal square root">;
def Tile_TanhOp : Tile_UnaryOp<"tanh", Tile_FloatTile,
    "the hyperbolic tangent (the GPU may use the tanh.approx path, relative "
    "error about 2^-11)">;

def Tile_CastOp : Tile_Op<"cast", [Pure]> {
  let summary = "converts a tile's elements to another type";
  let description = [{
    `f16(t)` in the source, and the implicit conversions of mixed
    precision. Floats round to nearest even; float to integer truncates
    toward zero and saturates; integers narrow by truncation and widen by
    sign extension; to `i1` is `!= 0`; from `i1` gives 0 or 1.

    ```mlir
    %h = phobos.cast %p : !phobos.tile<64x64xf32> to !phobos.tile<64x64xf16>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `to` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Structured tile operations
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [
    AlwaysSpeculatableImplTrait,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "matrix product of two tiles, with an optional accumulator";
  let description = [{
    `dot(a, b)` is `a @ b`, `[M, K] x [K, N] -> [M, N]`; with `transpose_b`
    it is `dot_t(a, b)`, `a @ b^T`, `[M, K] x [N, K] -> [M, N]`. With `acc`
    the result is `acc + a @ b` (what `acc += dot(a, b)` becomes). The
    order of the K-summation is unspecified.

    Operands share a float element type; the result is f32 for f16, bf16
    and f32 operands and f64 for f64 operands. Operands are tiles, or after
    shared-memory promotion `!phobos.smem` buffers (which may hold the f32
    operands already rounded to f16/bf16; the dot then reads shared memory,
    and has no other effect). `kind`, set by MMA selection,
    says which instructions compute it (`fma`, `mma_sync`, `wgmma` on sm_90a). `precision` says what f32
    operands are rounded to before multiplying: `ieee` (exact, FMA),
    `tf32`, `f16` or `bf16` (tensor cores, from `@tensorcore`); products
    accumulate in the result type (f32 or f64). `in_flight = N` (wgmma
    only, set by tile-pipeline) lets the dot return with its last N groups
    of warpgroup MMAs still running: its result may then only feed the next
    such dot or a `phobos.wgmma_wait`. `swap_ab` (wgmma only, set by
    tile-select-mma for a tf32 `b` stored [K, N], which wgmma cannot read
    from shared memory) computes the transposed product `(a b)^T = b^T a^T`:
    `b`'s fragments come from shared memory through registers as the
    instruction's A, `a` is its K-major B, and the accumulator is the
    transposed fragment layout (a `#phobos.blocked` one). `transpose_a`
    (wgmma only, set by tile-fold-transposed-operands) says that `a` is a
    16-bit shared-memory buffer holding A transposed, `[K, M]` with M
    contiguous: the dot is still `A @ b`, `[M, N]`, and wgmma reads A
    M-major (the buffer of `transpose(x)`'s `x`, stored as it was
    computed).

    ```mlir
    %c = phobos.dot %a, %b, %acc : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32>,
        !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
    %s = phobos.dot %q, %k precision(tf32) transpose_b : !phobos.tile<64x64xf32>,
        !phobos.tile<32x64xf32> -> !phobos.tile<64x32xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_FloatTile, Tile_AnySharedMemory]>:$a,
                       AnyTypeOf<[Tile_FloatTile, Tile_AnySharedMemory]>:$b,
                       Optional<Tile_FloatTile>:$acc,
                       DefaultValuedAttr<Tile_DotPrecisionAttr,
                                         "::phobos::tile::DotPrecision::ieee">:$precision,
                       UnitAttr:$transpose_b,
                       OptionalAttr<Tile_DotKindAttr>:$kind,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$in_flight,
                       UnitAttr:$swap_ab,
                       UnitAttr:$transpose_a);
  let results = (outs Tile_FloatTile:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $acc^)? (`precision` `(` $precision^ `)`)?
    (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? (`kind` `(` $kind^ `)`)? (`swap_ab` $swap_ab^)? attr-dict `:` qualified(type($a)) `,`
    qualified(type($b)) (`,` qualified(type($acc))^)? `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduces a tile along one axis, keeping it with extent 1";
  let description = [{
    `rowsum(t)` is a `sum` along axis 1 and gives `[R, 1]`; `colmax(t)` is a
    `max` along axis 0 and gives `[1, C]`. The reduced axis stays, with
    extent 1, so the result broadcasts back against the operand. `max` and
    `min` propagate NaN.

    ```mlir
    %m = phobos.reduce max %s along 1 : !phobos.tile<64x128xf32> -> !phobos.tile<64x1xf32>
    ```

    Two unit attributes, set by `tile-defer-lane-sums` on laid-out tiles,
    change only how the GPU lowering computes a sum, never its value: with
    `keep_lane_partials`, each lane along the axis keeps the sum of its own
    registers and the lanes are not combined; with `combine_lane_partials`
    (on an operand of extent 1 along the axis), the lanes' copies are added
    as distinct partials. A loop that carries `l = c * l + rowsum(p)` then
    combines its lanes once, after the loop. The interpreter computes both
    as plain reductions (the second, of an extent-1 axis, is the value).
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_NumericTile:$operand,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis,
                       UnitAttr:$keep_lane_partials,
                       UnitAttr:$combine_lane_partials);
  let results = (outs Tile_NumericTile:$result);
  let assemblyFormat = [{
    $kind $operand `along` $axis attr-dict `:` qualified(type($operand)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_CumsumOp : Tile_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sum along an axis";
  let description = [{
    `cumsum(t)` in the source (axis 0): `out[i, j] = sum_{r <= i} t[r, j]`.

    ```mlir
    %g = phobos.cumsum %t along 0 : !phobos.tile<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_NumericTile:$operand,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs Tile_NumericTile:$result);
  let assemblyFormat = "$operand `along` $axis attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_TrilOp : Tile_Op<"tril", [Pure, SameOperandsAndResultType]> {
  let summary = "keeps the lower triangle of a rank-2 tile";
  let description = [{
    `tril(t)`: keeps `t[i, j]` where `j <= i` and sets the rest to zero
    (false for `i1`).

    ```mlir
    %a = phobos.tril %s : !phobos.tile<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$operand);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$operand attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "swaps the two axes of a rank-2 tile";
  let description = [{
    `transpose(t)`: `out[j, i] = t[i, j]`.

    ```mlir
    %t = phobos.transpose %k : !phobos.tile<32x64xf32> -> !phobos.tile<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$operand);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$operand attr-dict `:` qualified(type($operand)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Layouts and shared memory (introduced by the GPU pipeline)
//===----------------------------------------------------------------------===//

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "moves a tile's elements to another layout";
  let description = [{
    The same tile (shape, element type, values) held by the threads as the
    result's layout says. Layout assignment inserts it where an op needs
    its operand in another layout; on the GPU it goes through shared
    memory.

    ```mlir
    %b = phobos.convert_layout %a : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x64xf32, #blocked>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_LocalAllocOp : Tile_Op<"local_alloc"> {
  let summary = "copies a tile into a shared-memory buffer";
  let description = [{
    Writes `source` into a buffer in the CTA's shared memory, laid out as
    the result type says. In a loop, each iteration reuses the buffer.
    Other threads see the writes after a `phobos.barrier`
    (tile-insert-barriers places them). `offset`, set by shared-memory
    allocation, is the buffer's byte offset.

    ```mlir
    %s = phobos.local_alloc %a : !phobos.tile<64x16xf32, #blocked> -> !phobos.smem<64x16xf32, #shared>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source, OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<Tile_AnySharedMemory, "",
                          [MemAlloc<Tile_SharedMemory>,
                           MemWrite<Tile_SharedMemory>]>:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load"> {
  let summary = "reads a shared-memory buffer into a tile";
  let description = [{
    Reads the buffer a `phobos.local_alloc` wrote into registers laid out as
    the result type says (after a `phobos.barrier` that makes the writes
    visible).

    ```mlir
    %t = phobos.local_load %s : !phobos.smem<64x16xf32, #shared> -> !phobos.tile<64x16xf32, #blocked>
    ```
  }];
  let arguments = (ins Arg<Tile_AnySharedMemory, "",
                           [MemRead<Tile_SharedMemory>]>:$source);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [
    MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "waits for every thread of the CTA; orders shared and global memory";
  let description = [{
    Every thread of the CTA waits here until all have arrived, and the
    shared- and global-memory writes made before it are visible to the
    CTA's reads after it (`bar.sync 0`). Placed by tile-insert-barriers,
    which inserts exactly the barriers the kernel's shared-memory accesses
    need, and tile-order-global, for global accesses of one tensor by two
    threads of the CTA; scalars are
    uniform across the CTA, so every branch and loop a barrier sits in is
    taken by all threads alike.

    ```mlir
    phobos.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Software pipelines (introduced by tile-pipeline)
//===----------------------------------------------------------------------===//

def Tile_LocalBufferOp : Tile_Op<"local_buffer"> {
  let summary = "a multi-stage shared-memory buffer for a software pipeline";
  let description = [{
    Shared memory for `S` copies (the leading axis) of one tile, written by
    asynchronous copies one slot at a time and read through
    `phobos.buffer_slot`. The layout describes one slot (it has one axis
    fewer than the type); slots follow each other, each starting on a
    16-byte boundary. `offset`, set by shared-memory allocation, is the byte
    offset of slot 0.

    ```mlir
    %buf = phobos.local_buffer : !phobos.smem<3x128x32xf16, #phobos.shared<order = [1, 0], padding = 8>>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<Tile_AnySharedMemory, "",
                          [MemAlloc<Tile_SharedMemory>]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_BufferSlotOp : Tile_Op<"buffer_slot", [Pure]> {
  let summary = "one slot of a multi-stage buffer";
  let description = [{
    The slot `index` (in `[0, S)`) of a `phobos.local_buffer`, as a buffer of
    the remaining axes: what a dot or an asynchronous copy names. `lag` says
    which iteration of the enclosing loop the slot holds the data of,
    relative to the current one (0: this iteration's, 2: the one two
    iterations ahead); the pass that made the index promises it, and the
    barrier analysis uses it to tell slots apart and to count the copy
    groups a read must wait for.

    ```mlir
    %a = phobos.buffer_slot %buf[%s] lag 0 : !phobos.smem<3x128x32xf16, #shared3> -> !phobos.smem<128x32xf16, #shared>
    ```
  }];
  let arguments = (ins Tile_AnySharedMemory:$buffer, I32:$index, I64Attr:$lag);
  let results = (outs Tile_AnySharedMemory:$result);
  let assemblyFormat = [{
    $buffer `[` $index `]` `lag` $lag attr-dict `:` qualified(type($buffer)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [AttrSizedOperandSegments]> {
  let summary = "copies a tensor slice into shared memory asynchronously";
  let description = [{
    Starts copying the slice of `tensor` at `offsets` (the extents and the
    thread distribution of `slice`, a laid-out tile type) into the buffer
    `destination`, with a load's masking: elements outside the tensor are
    written as zero, and when `enable` is false every element is. The copy
    completes at a later `phobos.async_wait` (which waits for whole groups
    of copies, closed by `phobos.async_commit`); what each thread copied is
    visible to the others after a barrier that follows that wait.

    ```mlir
    phobos.async_copy %A[%m0, %k] into %slot if %more {in_bounds = array<i1: false, true>}
        : !phobos.tensor<?x?xf16>, !phobos.tile<128x32xf16, #blocked>, !phobos.smem<128x32xf16, #shared>
    ```
  }];
  let arguments = (ins
    Arg<Tile_AnyTensor, "", [MemRead]>:$tensor, Variadic<I32>:$offsets,
    Arg<Tile_AnySharedMemory, "", [MemWrite<Tile_SharedMemory>]>:$destination,
    Optional<I1>:$enable, TypeAttrOf<Tile_AnyTile>:$slice,
    DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$point_axes,
    OptionalAttr<DenseBoolArrayAttr>:$in_bounds);
  let assemblyFormat = [{
    $tensor `[` $offsets `]` `into` $destination (`if` $enable^)? attr-dict `:`
    qualified(type($tensor)) `,` $slice `,` qualified(type($destination))
  }];
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store"> {
  let summary = "writes a tile into a slot of a multi-stage buffer";
  let description = [{
    Writes `value` (registers) into `destination`, a slot of a
    `phobos.local_buffer`, laid out as the slot's type says, at once (no
    copy group). tile-pipeline stages an operand this way when an
    asynchronous copy would move it element by element (a 4-byte operand
    whose shared layout transposes it, as wgmma's tf32 B): the loop loads
    the next iteration's tile into registers with 16-byte global loads and
    stores it here with 16-byte shared stores. Other threads see the
    writes after a barrier (tile-insert-barriers places it).

    ```mlir
    phobos.local_store %b into %slot : !phobos.tile<32x128xf32, #blocked>, !phobos.smem<32x128xf32, #shared>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$value,
                       Arg<Tile_AnySharedMemory, "",
                           [MemWrite<Tile_SharedMemory>]>:$destination);
  let assemblyFormat = [{
    $value `into` $destination attr-dict `:` qualified(type($value)) `,`
    qualified(type($destination))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit", [
    MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "closes a group of asynchronous copies";
  let description = [{
    The `phobos.async_copy`s a thread started since the last commit form one
    group; `phobos.async_wait` counts groups.

    ```mlir
    phobos.async_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "waits until at most `pending` copy groups are in flight";
  let description = [{
    Blocks the thread until all but the `pending` most recently committed
    groups of its asynchronous copies have completed. Placed by
    tile-insert-barriers before the reads that need the data (followed by a
    barrier, so that every thread's copies are visible).

    ```mlir
    phobos.async_wait 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_LocalBarriersOp : Tile_Op<"local_barriers"> {
  let summary = "mbarriers in shared memory for TMA copies to arrive on";
  let description = [{
    `N` mbarriers (the one axis of the type, 8 bytes each), initialised
    before anything follows: phase 0, `arrivals` arrivals per phase. A
    `phobos.tma_copy` arrives on one and adds the bytes it will write to
    the phase's transaction count; `phobos.mbarrier_wait` waits until a
    phase has had all its arrivals and all its bytes. Made by tile-pipeline
    (one per stage of a TMA pipeline); `offset` is set by shared-memory
    allocation.

    ```mlir
    %bars = phobos.local_barriers {arrivals = 2 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$arrivals,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<Tile_AnySharedMemory, "",
                          [MemAlloc<Tile_SharedMemory>]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>]> {
  let summary = "copies a box of a 2-D tensor into shared memory through TMA";
  let description = [{
    Starts the tensor memory accelerator's copy of the `[rows, cols]` box
    of `tensor` at `offsets` (the shape of `destination`; a 3-D tensor's
    first offset picks the plane the box is cut from) into
    `destination`, an atom layout (`#phobos.shared<..., atom = A>`, the
    tensor's last axis contiguous): one box of `[rows, A]` per atom column,
    swizzled by the hardware as the atom layout says. Elements outside the
    tensor are written as zero. When `enable` holds, one thread arrives on
    mbarrier `index` of `barriers`, expecting the destination's bytes; the
    copy completes that phase when all of them have landed, and a
    `phobos.mbarrier_wait` on it makes them visible. When `enable` is false
    nothing happens.

    With `after %released, %parity`, every thread first waits until the
    phase of parity `parity` of mbarrier `index` of `released` has
    completed: the readers of the slot's previous contents arrive on it
    (`phobos.mbarrier_arrive`) once they are done with them, so the copy
    needs no barrier of the whole CTA in front of it (tile-pipeline's
    "empty" mbarriers; the k-th refill of a slot waits for phase k - 1,
    parity `(k + 1) mod 2`, which a fresh mbarrier counts as complete for
    k = 0).

    The kernel receives one tensor map (a CUtensorMap the launcher encodes)
    per tensor and box: the launch contract lists them (`tensor_maps`).

    ```mlir
    phobos.tma_copy %A[%m0, %k] into %slot arrive %bars[%s] if %more
        : !phobos.tensor<?x?xf16>, !phobos.smem<128x64xf16, #atom>, !phobos.smem<4xi64, #plain>
    phobos.tma_copy %A[%m0, %k] into %slot arrive %full[%s] after %empty, %parity if %more
        : !phobos.tensor<?x?xf16>, !phobos.smem<128x64xf16, #atom>, !phobos.smem<4xi64, #plain>, !phobos.smem<4xi64, #plain>
    ```
  }];
  let arguments = (ins
    Arg<Tile_AnyTensor, "", [MemRead]>:$tensor, Variadic<I32>:$offsets,
    Arg<Tile_AnySharedMemory, "", [MemWrite<Tile_SharedMemory>]>:$destination,
    Tile_AnySharedMemory:$barriers, I32:$index,
    Optional<Tile_AnySharedMemory>:$released, Optional<I32>:$parity,
    Optional<I1>:$enable);
  let assemblyFormat = [{
    $tensor `[` $offsets `]` `into` $destination `arrive` $barriers `[` $index `]`
    (`after` $released^ `,` $parity)? (`if` $enable^)? attr-dict `:`
    qualified(type($tensor)) `,` qualified(type($destination)) `,`
    qualified(type($barriers)) (`,` qualified(type($released))^)?
  }];
  let hasVerifier = 1;
}

def Tile_MbarrierWaitOp : Tile_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits until a phase of an mbarrier completes";
  let description = [{
    Every thread waits until the phase of mbarrier `index` of `barriers`
    whose parity is `phase` (0 or 1) has completed: then what the TMA
    copies arriving on that phase wrote is visible to it. Placed by
    tile-pipeline before the reads of a slot a TMA copy fills: the k-th
    fill of a slot is phase k, so the parity is `(k / stages) mod 2` for
    iteration k.

    ```mlir
    phobos.mbarrier_wait %bars[%s], %parity : !phobos.smem<4xi64, #plain>
    ```
  }];
  let arguments = (ins Tile_AnySharedMemory:$barriers, I32:$index, I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_MbarrierArriveOp : Tile_Op<"mbarrier_arrive", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "every warp arrives once on an mbarrier";
  let description = [{
    Each warp of the CTA, once all its threads get here, arrives once on
    mbarrier `index` of `barriers` (whose `arrivals` is the number of
    warps), with release semantics: the phase completes when every warp has
    arrived, and what they read before arriving is done when a thread
    waiting on the phase goes on. When `enable` is false nothing happens.
    Placed by tile-pipeline where a TMA ring's slot is no longer read (after
    the wgmma wait that retires its readers), so that the copy refilling the
    slot waits for this phase (`phobos.tma_copy ... after`) instead of a
    barrier of the whole CTA.

    ```mlir
    phobos.mbarrier_arrive %empty[%s] : !phobos.smem<4xi64, #plain>
    phobos.mbarrier_arrive %empty[%prev] if %started : !phobos.smem<4xi64, #plain>
    ```
  }];
  let arguments = (ins Tile_AnySharedMemory:$barriers, I32:$index,
                       Optional<I1>:$enable);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`if` $enable^)? attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_WgmmaWaitOp : Tile_Op<"wgmma_wait", [
    AllTypesMatch<["value", "result"]>,
    MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "waits for the warpgroup MMAs a dot left in flight";
  let description = [{
    A `wgmma` dot with `in_flight = N` returns while its last N groups of
    warpgroup MMAs still run: their accumulator registers are not ready,
    and the shared memory they read is still being read. `wgmma_wait`
    blocks until at most `pending` groups are in flight and passes the
    accumulator on, so that what reads it comes after the wait. Placed by
    tile-pipeline after a loop whose dots keep a group in flight across
    iterations, and by tile-defer-dots. `holding` names registers a group in
    flight still reads (a `swap_ab` dot's B fragments, or a 16-bit A operand
    in registers, held as the packed pairs the wgmma reads): they stay
    allocated until the wait.

    ```mlir
    %acc = phobos.wgmma_wait %r#0 {pending = 0 : i32} : !phobos.tile<128x128xf32, #mma>
    %acc2 = phobos.wgmma_wait %arg1 holding %arg2 : !phobos.tile<32x128xf32, #frag> {pending = 0 : i32} : !phobos.tile<128x128xf32, #blocked>
    ```
  }];
  let arguments = (ins Tile_FloatTile:$value, Optional<Tile_FloatTile>:$held,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let results = (outs Tile_FloatTile:$result);
  let assemblyFormat = [{
    $value (`holding` $held^ `:` qualified(type($held)))? attr-dict `:` qualified(type($value))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warp specialisation (introduced by tile-warp-specialize)
//===----------------------------------------------------------------------===//

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    HasParent<"KernelOp">, SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "a producer warpgroup and the consumer warps, run side by side";
  let description = [{
    The rest of a kernel split by role. The kernel launches one warpgroup
    (128 threads) more than `@launch` lays its tiles out for: that last
    warpgroup runs `producer` (the TMA copies of a pipeline: each waits for
    its slot's release and is issued by the warpgroup's first thread), the
    `@launch` threads run `consumer` (everything else: the mbarrier waits,
    the dots, the epilogue). The two run concurrently and meet only at
    mbarriers: a copy arrives on its slot's "full" mbarrier, the consumers
    arrive on its "empty" one. A CTA barrier in `consumer` waits for the
    consumer threads only (a named barrier). Each role first sets the
    registers its warps hold (`setmaxnreg`): `producer_registers` and
    `consumer_registers` a thread.

    The program's meaning does not depend on the split: running `producer`
    and `consumer` in any interleaving the mbarriers allow gives what the
    kernel gave before it (the interpreter runs them as coroutines, which
    switch at an mbarrier that is not ready, and reports a wait no
    interleaving can satisfy).

    ```mlir
    phobos.warp_specialize producer(40) {
      phobos.tma_copy %A[%m0, %k] into %slot arrive %full[%s] after %empty, %parity if %more : ...
    } consumer(232) {
      phobos.mbarrier_wait %full[%s], %phase : ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<24>, IntMaxValue<256>]>:$producer_registers,
                       ConfinedAttr<I32Attr, [IntMinValue<24>, IntMaxValue<256>]>:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = [{
    `producer` `(` $producer_registers `)` $producer
    `consumer` `(` $consumer_registers `)` $consumer attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Threads of the producer warpgroup.
    static constexpr int64_t kProducerThreads = 128;
    ::mlir::Block &getProducerBlock() { return getProducer().front(); }
    ::mlir::Block &getConsumerBlock() { return getConsumer().front(); }
  }];
}

def Tile_WarpgroupTurnOp : Tile_Op<"warpgroup_turn"> {
  let summary = "the consumer warpgroups take turns (FlashAttention 3's ping-pong)";
  let description = [{
    Orders the consumer warpgroups of a `phobos.warp_specialize` (at least
    two) so that one at a time runs the code between its `take` and its
    `give`, in warpgroup order, round and round: while one warpgroup's
    MMAs run, the next one computes what does not need the tensor cores
    (attention's softmax) instead of competing for them.

    - `start` (before the loop): the last warpgroup gives the first its
      turn.
    - `take`: each warpgroup waits for its turn (named barrier `2 + w` over
      the two warpgroups' threads).
    - `give`: the warpgroup passes the turn to the next one.
    - `finish` (after the loop): the first warpgroup takes the turn the
      last one gave after its final `give`, so that no arrival is left.

    Every consumer thread runs the same steps the same number of times;
    nothing between a `take` and its `give` may wait for the other
    warpgroups (a CTA barrier there would wait forever). The steps order
    the warpgroups; they change no value (the interpreter, which runs a
    CTA's threads as one, skips them). Placed by tile-pingpong.

    ```mlir
    phobos.warpgroup_turn start
    scf.for ... {
      phobos.warpgroup_turn take
      %s = phobos.dot ... kind(wgmma) {in_flight = 1 : i32} ...
      phobos.warpgroup_turn give
      ...
    }
    phobos.warpgroup_turn finish
    ```
  }];
  let arguments = (ins Tile_TurnStepAttr:$step);
  let assemblyFormat = "$step attr-dict";
  let hasVerifier = 1;
}

#endif // PHOBOS_DIALECT_TILE_IR_TILEOPS_TD
