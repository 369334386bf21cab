//===- ClusterOps.td - Operations of the phobos_cluster dialect -*- tablegen -*-===//
//
// The cluster program (tensors in storage, scalars, the units of work over
// the super-tile grid, the super-tiles they read and write, the cluster
// loop, the leaf launches) and the per-node programs (allocate, load,
// fetch, compute, store, free).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_IR_CLUSTEROPS_TD
#define PHOBOS_DIALECT_CLUSTER_IR_CLUSTEROPS_TD

include "Phobos/Dialect/Cluster/IR/ClusterDialect.td"
include "Phobos/Dialect/Cluster/IR/ClusterTypes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// The tile dialect's tensor type, by its C++ class: including the tile
// dialect's .td files here would regenerate its enums.
def Cluster_GlobalTensorType
    : Type<CPred<"::llvm::isa<::phobos::tile::GlobalTensorType>($_self)">,
           "a !phobos.tensor", "::phobos::tile::GlobalTensorType">;

//===----------------------------------------------------------------------===//
// The cluster program
//===----------------------------------------------------------------------===//

def Cluster_ProgramOp : Cluster_Op<"program", [
    IsolatedFromAbove, NoRegionArguments, NoTerminator, SingleBlock, Symbol,
    SymbolTable
  ]> {
  let summary = "an @cluster kernel cut into super-tiles, with its leaves";
  let description = [{
    What `--phobos-cluster-split` makes of one `@cluster` kernel: the
    tensors in storage (`phobos_cluster.tensor`) and scalars
    (`phobos_cluster.scalar`) of the kernel's signature, one
    `phobos_cluster.units` describing the super-tile grid and what each
    unit of work does, and the leaves: the `phobos.kernel`s that the units
    launch on one super-tile each, named in this program's symbol table.

    `cluster` is the kernel's `@cluster` search space. The program is
    parametric: problem dims and `@cluster` sizes are names until
    `--phobos-cluster-plan` binds them, recording `dims` (dim name ->
    extent), `bindings` (`@cluster` name -> super-tile extent) and `nodes`,
    and appending one `phobos_cluster.node` per node. Between nodes, the
    verifier checks that every fetch names a node that holds the tile and
    that the holder frees it after serving exactly the fetches made from it.

    ```mlir
    phobos_cluster.program @add attributes {cluster = [#phobos.tune_dim<"BLOCK", [1048576]>]} {
      phobos_cluster.tensor @a read dims ["N"] split ["BLOCK"] : !phobos.tensor<?xf32>
      phobos_cluster.tensor @c write dims ["N"] split ["BLOCK"] : !phobos.tensor<?xf32>
      phobos_cluster.units (%x) in ["N" / "BLOCK"] {
        %a = phobos_cluster.ref read @a [%x]
        %c = phobos_cluster.ref write @c [%x]
        phobos_cluster.apply @add(%a, %c)
      }
      phobos.kernel @add(...) { ... }
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    OptionalAttr<ArrayAttr>:$cluster,
    OptionalAttr<DictionaryAttr>:$bindings,
    OptionalAttr<DictionaryAttr>:$dims,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$nodes
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The units of work, if the program has them.
    UnitsOp getUnits();
    /// The tensor or scalar of this name, or null.
    TensorOp lookupTensor(::llvm::StringRef name);
    ScalarOp lookupScalar(::llvm::StringRef name);
    /// Whether --phobos-cluster-plan has bound the program.
    bool isPlanned() { return getBindingsAttr() && getDimsAttr(); }
    /// The bound value of an @cluster name or dim, if any.
    std::optional<int64_t> getBinding(::llvm::StringRef name);
    std::optional<int64_t> getDimValue(::llvm::StringRef name);
    /// The values the @cluster space gives `name` (empty if none).
    ::llvm::SmallVector<int64_t> getClusterValues(::llvm::StringRef name);
  }];
}

def Cluster_TensorOp : Cluster_Op<"tensor", [HasParent<"ProgramOp">, Symbol]> {
  let summary = "a tensor in storage and how it is cut into super-tiles";
  let description = [{
    One tensor parameter of the kernel. `dims` names each axis's extent as
    the source does (`"M"`, or `"64"` for a literal); `type` is the
    kernel's tensor type. `split` says per axis which `@cluster` name cuts
    it into super-tiles, or `""` for an axis every unit of work reads whole
    (sliced with `:` or inside a loop over its full extent). `mode` says
    whether units read it, write it, or both (`rmw`).

    Once planned, `shape` holds the bound extents; `uri` is where the tensor
    lives in storage (`file://...`), set from the job.

    ```mlir
    phobos_cluster.tensor @A read dims ["M", "K"] split ["TILE_M", "TILE_K"] : !phobos.tensor<?x?xf32>
    phobos_cluster.tensor @K read dims ["Nk", "D"] split ["", ""] shape [16384, 64] uri "file:///tmp/k.tensor" : !phobos.tensor<?x64xf32>
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Cluster_AccessModeAttr:$mode,
    StrArrayAttr:$dims,
    StrArrayAttr:$split,
    OptionalAttr<DenseI64ArrayAttr>:$shape,
    OptionalAttr<StrAttr>:$uri,
    TypeAttrOf<Cluster_GlobalTensorType>:$type
  );
  let assemblyFormat = [{
    $sym_name $mode `dims` $dims `split` $split (`shape` $shape^)? (`uri` $uri^)?
    attr-dict `:` $type
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::phobos::tile::GlobalTensorType getTensorType() {
      return ::llvm::cast<::phobos::tile::GlobalTensorType>(getType());
    }
    int64_t getRank() { return getTensorType().getRank(); }
    /// The @cluster name that splits `axis`, or "" when it is read whole.
    ::llvm::StringRef getSplitName(unsigned axis);
    /// The number of axes cut into super-tiles.
    unsigned getNumSplitAxes();
  }];
}

def Cluster_ScalarOp : Cluster_Op<"scalar", [HasParent<"ProgramOp">, Symbol]> {
  let summary = "a scalar parameter of the kernel";
  let description = [{
    A scalar the leaves take by value; `value` is set from the job.

    ```mlir
    phobos_cluster.scalar @alpha : f32 {value = 1.000000e+00 : f32}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$type,
                       OptionalAttr<TypedAttrInterface>:$value);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
  let hasVerifier = 1;
}

def Cluster_UnitsOp : Cluster_Op<"units", [
    HasParent<"ProgramOp">, NoTerminator, SingleBlock,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>
  ]> {
  let summary = "the super-tile grid and the work of one unit on it";
  let description = [{
    The units of work: one per point of the super-tile grid. Grid axis `i`
    (`ctx.block.x`, `.y`, `.z` at the cluster level) runs over
    `dims[i] / split[i]` super-tiles, and the body's block argument `i` is
    the unit's coordinate along it. The body names the super-tiles the unit
    reads and writes (`phobos_cluster.ref`) and launches leaves on them
    (`phobos_cluster.apply`), in order, with at most one cluster loop.

    ```mlir
    phobos_cluster.units (%x, %y) in ["M" / "TILE_M", "N" / "TILE_N"] {
      %c = phobos_cluster.ref rmw @C [%x, %y]
      phobos_cluster.apply @matmul_init(%c) scalars [@beta]
      ...
    }
    ```
  }];
  let arguments = (ins StrArrayAttr:$dims, StrArrayAttr:$split);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::ArrayRef<::llvm::StringRef>":$dims,
                   "::llvm::ArrayRef<::llvm::StringRef>":$split)>
  ];
  let extraClassDeclaration = [{
    unsigned getNumAxes() { return getDims().size(); }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Cluster_LoopOp : Cluster_Op<"loop", [
    HasParent<"UnitsOp">, NoTerminator, SingleBlock,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>
  ]> {
  let summary = "a cluster loop: one launch per super-tile chunk of a dim";
  let description = [{
    A loop of the source whose step is an `@cluster` name: it runs across
    super-tiles, `dim / split` iterations, the block argument being the
    chunk's coordinate. The cluster compiler accepts it only around an
    accumulator, so the body launches the step leaf once per chunk on the
    same output super-tile, which lives on one node.

    ```mlir
    phobos_cluster.loop %k in "K" / "TILE_K" {
      %a = phobos_cluster.ref read @A [%x, %k]
      %b = phobos_cluster.ref read @B [%k, %y]
      phobos_cluster.apply @matmul_step(%a, %b, %c) scalars [@alpha, @beta]
    }
    ```
  }];
  let arguments = (ins StrAttr:$dim, StrAttr:$split);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$dim, "::llvm::StringRef":$split)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::Value getInductionVar() { return getBodyBlock().getArgument(0); }
  }];
}

def Cluster_RefOp : Cluster_Op<"ref", [
    ParentOneOf<["UnitsOp", "LoopOp"]>, Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>
  ]> {
  let summary = "the super-tile of a tensor that a unit of work uses";
  let description = [{
    Names the super-tile of `tensor` at `coords`, one coordinate per split
    axis of the tensor, in axis order; each is the unit's grid coordinate
    or the cluster loop's chunk along the same dim and `@cluster` name.
    Axes read whole take no coordinate. `access` is what the unit does with
    the super-tile's content: `read` it, `write` it without reading the
    stored value first, or both (`rmw`).

    ```mlir
    %a = phobos_cluster.ref read @A [%x, %k]
    %k = phobos_cluster.ref read @K []
    ```
  }];
  let arguments = (ins Cluster_AccessModeAttr:$access,
                       FlatSymbolRefAttr:$tensor, Variadic<Index>:$coords);
  let results = (outs Cluster_SuperTileType:$result);
  let assemblyFormat = "$access $tensor ` ` `[` $coords `]` attr-dict";
}

def Cluster_ApplyOp : Cluster_Op<"apply", [
    ParentOneOf<["UnitsOp", "LoopOp"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>
  ]> {
  let summary = "launches a leaf on super-tiles";
  let description = [{
    One launch of the leaf kernel `leaf`, its tensor parameters bound in
    order to `tiles` and its scalar parameters to `scalars`. On the node,
    the leaf runs as an ordinary grid of CTAs over the super-tile.

    ```mlir
    phobos_cluster.apply @matmul_step(%a, %b, %c) scalars [@alpha, @beta]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$leaf,
                       Variadic<Cluster_SuperTileType>:$tiles,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$scalars);
  let assemblyFormat = "$leaf `(` $tiles `)` (`scalars` $scalars^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Per-node programs
//===----------------------------------------------------------------------===//

def Cluster_NodeOp : Cluster_Op<"node", [
    HasParent<"ProgramOp">, IsolatedFromAbove, NoRegionArguments, NoTerminator,
    SingleBlock
  ]> {
  let summary = "the instructions one node runs";
  let description = [{
    The program the scheduler sends to node `index`: its instructions in
    an order that respects their dependencies. A node runs each
    instruction once the tokens it lists are complete, so independent
    instructions (the next unit's loads) overlap. `peak_bytes` is the most
    memory the node's buffers take when its frees complete in this order.

    The verifier checks that every buffer is allocated before anything
    else touches it, read only after a load, fetch or compute filled it
    (or `allocate ... zero`), stored only after a compute wrote it, and
    freed once after its last use; and that two instructions on a buffer,
    one of them writing, are ordered by their dependencies.

    ```mlir
    phobos_cluster.node 0 attributes {peak_bytes = 201326592 : i64} {
      %b, %t0 = phobos_cluster.allocate @C [0, 0] : !phobos_cluster.buffer<4096x4096xf32>
      %t1 = phobos_cluster.compute @matmul_init(%b) scalars [@beta] after [%t0]
      ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$index,
                       OptionalAttr<I64Attr>:$peak_bytes);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$index attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

class Cluster_InstrOp<string mnemonic, list<Trait> traits = []>
    : Cluster_Op<mnemonic, !listconcat(traits, [HasParent<"NodeOp">])>;

def Cluster_AllocateOp : Cluster_InstrOp<"allocate", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>
  ]> {
  let summary = "makes room on the node for one super-tile";
  let description = [{
    Allocates a buffer for the super-tile of `tensor` at `coords` (one per
    split axis). With `zero` the buffer starts as zeros: a `write` tensor
    that its leaves also read (an accumulator's `beta * c_old`) has no
    stored value to load.

    ```mlir
    %b, %t = phobos_cluster.allocate @A [0, 1] : !phobos_cluster.buffer<4096x4096xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$tensor, DenseI64ArrayAttr:$coords,
                       UnitAttr:$zero, Variadic<Cluster_TokenType>:$deps);
  let results = (outs Cluster_BufferType:$buffer, Cluster_TokenType:$token);
  let assemblyFormat = [{
    $tensor $coords (`zero` $zero^)? (`after` ` ` `[` $deps^ `]`)? attr-dict `:` qualified(type($buffer))
  }];
}

def Cluster_LoadOp : Cluster_InstrOp<"load"> {
  let summary = "reads a super-tile from storage into a buffer";
  let description = [{
    Fills `buffer` with its super-tile, read from the tensor's `uri`.

    ```mlir
    %t1 = phobos_cluster.load %b after [%t0]
    ```
  }];
  let arguments = (ins Cluster_BufferType:$buffer,
                       Variadic<Cluster_TokenType>:$deps);
  let results = (outs Cluster_TokenType:$token);
  let assemblyFormat = "$buffer (`after` ` ` `[` $deps^ `]`)? attr-dict `:` qualified(type($buffer))";
}

def Cluster_FetchOp : Cluster_InstrOp<"fetch"> {
  let summary = "copies a super-tile from the node that holds it";
  let description = [{
    Fills `buffer` with its super-tile as held by node `source`. The
    request waits on that node until the tile is there; no scheduler is
    involved.

    ```mlir
    %t1 = phobos_cluster.fetch %b from 0 after [%t0] : !phobos_cluster.buffer<4096x4096xf32>
    ```
  }];
  let arguments = (ins Cluster_BufferType:$buffer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$source,
                       Variadic<Cluster_TokenType>:$deps);
  let results = (outs Cluster_TokenType:$token);
  let assemblyFormat = [{
    $buffer `from` $source (`after` ` ` `[` $deps^ `]`)? attr-dict `:` qualified(type($buffer))
  }];
}

def Cluster_ComputeOp : Cluster_InstrOp<"compute", [
    AttrSizedOperandSegments, DeclareOpInterfaceMethods<SymbolUserOpInterface>
  ]> {
  let summary = "launches a leaf on buffers";
  let description = [{
    Runs the leaf kernel `leaf` as a grid of CTAs, its tensor parameters
    bound in order to `buffers` and its scalar parameters to `scalars`.
    Which buffers it reads and writes follows from the leaf: the
    parameters it loads from and stores to.

    ```mlir
    %t = phobos_cluster.compute @matmul_step(%a, %b, %c) scalars [@alpha, @beta] after [%t1, %t2, %t3]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$leaf,
                       Variadic<Cluster_BufferType>:$buffers,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$scalars,
                       Variadic<Cluster_TokenType>:$deps);
  let results = (outs Cluster_TokenType:$token);
  let assemblyFormat = [{
    $leaf `(` $buffers `)` (`scalars` $scalars^)? (`after` ` ` `[` $deps^ `]`)?
    attr-dict `:` qualified(type($buffers))
  }];
}

def Cluster_StoreOp : Cluster_InstrOp<"store"> {
  let summary = "writes a computed super-tile to storage";
  let description = [{
    Writes `buffer` to its super-tile of the tensor's `uri`.

    ```mlir
    %t = phobos_cluster.store %c after [%t5] : !phobos_cluster.buffer<4096x4096xf32>
    ```
  }];
  let arguments = (ins Cluster_BufferType:$buffer,
                       Variadic<Cluster_TokenType>:$deps);
  let results = (outs Cluster_TokenType:$token);
  let assemblyFormat = "$buffer (`after` ` ` `[` $deps^ `]`)? attr-dict `:` qualified(type($buffer))";
}

def Cluster_FreeOp : Cluster_InstrOp<"free"> {
  let summary = "releases a buffer after its last use";
  let description = [{
    Frees `buffer` once its dependencies (the buffer's last uses on this
    node) are complete and, for a tile other nodes fetch, once it has
    served `serves` fetches.

    ```mlir
    %t = phobos_cluster.free %a serves 2 after [%t7] : !phobos_cluster.buffer<4096x4096xf32>
    ```
  }];
  let arguments = (ins Cluster_BufferType:$buffer,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$serves,
                       Variadic<Cluster_TokenType>:$deps);
  let results = (outs Cluster_TokenType:$token);
  let assemblyFormat = [{
    $buffer (`serves` $serves^)? (`after` ` ` `[` $deps^ `]`)? attr-dict `:` qualified(type($buffer))
  }];
}

#endif // PHOBOS_DIALECT_CLUSTER_IR_CLUSTEROPS_TD
