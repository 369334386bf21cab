//===- ClusterDialect.td - The phobos_cluster dialect ------*- tablegen -*-===//
//
// The `phobos_cluster` dialect: an @cluster kernel cut at super-tile
// granularity (the cluster program and its leaves), and the per-node
// programs the scheduler sends to the nodes.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_IR_CLUSTERDIALECT_TD
#define PHOBOS_DIALECT_CLUSTER_IR_CLUSTERDIALECT_TD

include "mlir/IR/OpBase.td"

def Cluster_Dialect : Dialect {
  let name = "phobos_cluster";
  let cppNamespace = "::phobos::cluster";
  let summary = "Super-tile programs of an @cluster kernel and their per-node plans";
  let description = [{
    An `@cluster` kernel adds one tiling level above the grid of CTAs: the
    problem is cut into super-tiles, and each node (one GPU) owns some of
    them. This dialect holds the two forms the cluster compiler works with.

    The **cluster program** (`phobos_cluster.program`), made by
    `--phobos-cluster-split` from a `phobos.kernel`, is parametric in the
    problem's dims and the `@cluster` sizes: the tensors in storage with
    the way each axis is split into super-tiles (`tensor`), the scalars
    (`scalar`), the super-tile grid and the units of work over it
    (`units`), the super-tiles each unit reads and writes (`ref`), an
    optional cluster loop (`loop`) and the launches of leaves on
    super-tiles (`apply`). The leaves are ordinary `phobos.kernel`s nested
    in the program: the source's kernel with `@cluster` removed, whose
    tensors are one super-tile each.

    The **per-node programs** (`phobos_cluster.node`), added by
    `--phobos-cluster-plan` once dims, `@cluster` sizes and the node count
    are bound, list each node's instructions: `allocate`, `load` (from
    storage), `fetch` (from the node that holds a tile), `compute` (launch
    a leaf), `store` and `free`. Every instruction yields a
    `!phobos_cluster.token`, and its dependencies are the tokens it lists
    after `after`; they are always on the same node. Between nodes, a
    `fetch` waits on the tile it names, and a `free` of a tile other nodes
    fetch waits until it has served them all (`serves`).

    The front end marks what the split needs when it imports a kernel for
    the cluster compiler (`phobos-translate --import-phobos --cluster`):
    `phobos_cluster.dim` on the `arith.constant`s that spell an `@cluster`
    name, `phobos_cluster.extents` on the slices whose extents do, and
    `phobos_cluster.marked` on the kernel. The dialect verifies these
    discardable attributes wherever they appear.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::phobos::tile::TileDialect"
  ];
  let extraClassDeclaration = [{
    /// On an `arith.constant`: the @cluster name the source wrote there.
    static constexpr ::llvm::StringLiteral kDimAttrName = "phobos_cluster.dim";
    /// On a `phobos.load` / `phobos.store`: per tensor axis, the @cluster
    /// name the slice's extent was written as (`:+ NAME`), or "".
    static constexpr ::llvm::StringLiteral kExtentsAttrName =
        "phobos_cluster.extents";
    /// On a `phobos.kernel`: imported with the marks above.
    static constexpr ::llvm::StringLiteral kMarkedAttrName =
        "phobos_cluster.marked";

    void registerTypes();
  }];
}

class Cluster_Op<string mnemonic, list<Trait> traits = []>
    : Op<Cluster_Dialect, mnemonic, traits>;

#endif // PHOBOS_DIALECT_CLUSTER_IR_CLUSTERDIALECT_TD
