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

#endif // PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PASSES_TD
