//===- Passes.td - Passes of the cluster compiler ----------*- tablegen -*-===//
//
// The cluster compiler: an @cluster kernel becomes a cluster program and
// its leaves (split), then per-node programs for a bound problem (plan).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PASSES_TD
#define PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ClusterSplit : Pass<"phobos-cluster-split", "::mlir::ModuleOp"> {
  let summary = "cuts @cluster kernels into a cluster program and its leaves";
  let description = [{
    Reads each `phobos.kernel` with an `@cluster` space, imported for the
    cluster compiler (`phobos-translate --import-phobos --cluster`, which
    marks where the source wrote an `@cluster` name), twice: at the cluster
    level, where the `@cluster` names are super-tile sizes and `ctx.block`
    counts super-tiles, and as the leaf, the same body bound to the
    `@autotune` values, whose tensors are one super-tile each. The kernel is
    replaced by a `phobos_cluster.program` of the same name.

    Every tensor axis is classified from the slices that touch it:
    - `ctx.block.<a> * S :+ S`, with `S` an `@cluster` name, cuts the axis
      into `S` super-tiles along grid axis `a` (one unit of work per grid
      point);
    - `k :+ S`, with `k` the induction variable of a loop whose step is an
      `@cluster` name (a cluster loop), cuts it into chunks the loop walks;
    - `:`, a constant offset, or a loop over the axis's full extent: the
      axis is read whole by every unit.

    Without a cluster loop the leaf is the kernel itself. With one, the loop
    must carry an accumulator (`var acc = 0`, `acc += ...`, stored once as
    `C[..] = acc` or `C[..] = alpha * acc + beta * c_old`): the kernel
    becomes an init leaf (`<kernel>_init`: zero the output super-tile, or
    scale it by `beta`) and a step leaf (`<kernel>_step`: the kernel with
    the store turned into `C[..] = alpha * acc + c_old`, adding one chunk
    per launch), and the accumulator lives in the output's own buffer.

    Rejected, each at its source location with the rule it breaks: a tensor
    read at two super-tile coordinates in one unit (a halo), a grid axis
    that is not `ctx.block.<a> * S` with extent `S`, a loop that does not
    start at 0 or whose bound is not a symbolic dim, a cluster loop whose
    state is not an accumulator. (`@cluster` arguments that are not search
    dimensions, names that are not `@autotune` names and tile parameters
    are rejected by the front end.)

    Before (`add`, imported with `--cluster`):
    ```mlir
    phobos.kernel @add(%a, %b, %c) attributes {cluster = [...], phobos_cluster.marked} {
      %x = phobos.block_id x
      %s = arith.constant {phobos_cluster.dim = "BLOCK"} 16 : i32
      %o = arith.muli %x, %s : i32
      %t = phobos.load %a[%o] {phobos_cluster.extents = ["BLOCK"]} ...
    ```
    After:
    ```mlir
    phobos_cluster.program @add attributes {cluster = [...]} {
      phobos_cluster.tensor @a read dims ["N"] split ["BLOCK"] : !phobos.tensor<?xf32>
      ...
      phobos_cluster.units (%x) in ["N" / "BLOCK"] {
        %0 = phobos_cluster.ref read @a [%x]
        ...
        phobos_cluster.apply @add(%0, %1, %2)
      }
      phobos.kernel @add(...) { ... }  // the leaf
    }
    ```
  }];
  let dependentDialects = ["::phobos::cluster::ClusterDialect"];
  let statistics = [
    Statistic<"numPrograms", "num-programs", "Kernels split into programs">,
    Statistic<"numLeaves", "num-leaves", "Leaf kernels made">
  ];
}

def ClusterPlan : Pass<"phobos-cluster-plan", "::mlir::ModuleOp"> {
  let summary = "binds a cluster program and unrolls it into per-node programs";
  let description = [{
    For every `phobos_cluster.program`: binds the problem's dims and the
    `@cluster` sizes, checks that super-tiles divide the problem and that
    the leaf's tiles (its first `@autotune` values) divide the super-tiles,
    places each unit of work on the node that owns its output super-tile
    (round robin over the nodes by the super-tile's row-major index), and
    appends one `phobos_cluster.node` per node: allocate before first use,
    load (or fetch from the node that holds the tile), compute, store, and
    free after the last use on that node, with explicit dependencies.

    Input super-tiles are loaded from storage once, by the node of the
    first unit that reads them, and fetched by the other nodes
    (`ingest=fetch`), or loaded by every node that reads them
    (`ingest=direct`). Each node's peak memory (buffers alive at once in
    program order) is recorded as `peak_bytes` and checked against
    `vram-bytes`.

    `@cluster` sizes: the values of `cluster`, else the first value of each
    `@cluster` dimension, or with `autotune` the best combination of the
    cost model: every combination is planned; those that do not divide the
    problem, leave a node without a unit or exceed `vram-bytes` are
    dropped; the rest are ranked by the busiest node's compute time (the
    leaves' FLOPs at `node-tflops`) plus transfer time (the larger of the
    bytes into and out of the node at `link-gbps` GB/s).

    Before: a program from `--phobos-cluster-split`. After (`nodes=4`):
    ```mlir
    phobos_cluster.program @matmul attributes {bindings = {TILE_K = 4096, ...}, dims = {K = 20480, ...}, nodes = 4} {
      ...
      phobos_cluster.node 0 attributes {peak_bytes = ...} {
        %b, %t = phobos_cluster.allocate @C [0, 0] ...
    ```
  }];
  let options = [
    ListOption<"dims", "dims", "std::string",
               "The problem's dims, NAME=VALUE">,
    Option<"nodes", "nodes", "int64_t", "1", "The number of nodes">,
    Option<"vramBytes", "vram-bytes", "int64_t", "0",
           "Memory of one node in bytes (0: unlimited)">,
    ListOption<"cluster", "cluster", "std::string",
               "@cluster sizes, NAME=VALUE (the rest take their first value)">,
    Option<"autotune", "autotune", "bool", "false",
           "Choose the @cluster sizes by the cost model">,
    Option<"nodeTflops", "node-tflops", "double", "50.0",
           "Cost model: a node's TFLOP/s">,
    Option<"linkGbps", "link-gbps", "double", "25.0",
           "Cost model: a node's link bandwidth in GB/s">,
    Option<"ingest", "ingest", "std::string", "\"fetch\"",
           "How inputs reach the nodes: fetch (loaded once, fetched by the "
           "other nodes) or direct (every node loads them)">
  ];
  let statistics = [
    Statistic<"numInstructions", "num-instructions",
              "Per-node instructions made">
  ];
}

#endif // PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PASSES_TD
