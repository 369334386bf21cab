// RUN: phobos-opt %s | phobos-opt | FileCheck %s
// RUN: phobos-opt %s --mlir-print-op-generic | phobos-opt | FileCheck %s

// Round-trip of every phobos_cluster op with its optional parts, through
// the custom and the generic syntax: a planned program with a cluster loop,
// its leaves and two per-node programs.

// CHECK-LABEL: phobos_cluster.program @acc
// CHECK-SAME: bindings = {S = 4 : i64}
// CHECK-SAME: cluster = [#phobos.tune_dim<"S", [4, 8]>]
// CHECK-SAME: dims = {N = 8 : i64}
// CHECK-SAME: nodes = 2 : i64
phobos_cluster.program @acc attributes {cluster = [#phobos.tune_dim<"S", [4, 8]>], bindings = {S = 4 : i64}, dims = {N = 8 : i64}, nodes = 2 : i64} {
  // CHECK: phobos_cluster.tensor @x read dims ["N"] split ["S"] shape [8] uri "file:///tmp/x.tensor" : !phobos.tensor<?xf32>
  // CHECK: phobos_cluster.tensor @w read dims ["D"] split [""] shape [16] : !phobos.tensor<16xf32>
  // CHECK: phobos_cluster.tensor @y rmw dims ["N"] split ["S"] shape [8] : !phobos.tensor<?xf32>
  // CHECK: phobos_cluster.scalar @alpha : f32 {value = 2.000000e+00 : f32}
  // CHECK: phobos_cluster.scalar @n : i32
  phobos_cluster.tensor @x read dims ["N"] split ["S"] shape [8] uri "file:///tmp/x.tensor" : !phobos.tensor<?xf32>
  phobos_cluster.tensor @w read dims ["D"] split [""] shape [16] : !phobos.tensor<16xf32>
  phobos_cluster.tensor @y rmw dims ["N"] split ["S"] shape [8] : !phobos.tensor<?xf32>
  phobos_cluster.scalar @alpha : f32 {value = 2.0 : f32}
  phobos_cluster.scalar @n : i32

  // CHECK: phobos_cluster.units (%[[X:.*]]) in ["N" / "S"] {
  // CHECK-NEXT: %[[Y:.*]] = phobos_cluster.ref rmw @y [%[[X]]]
  // CHECK-NEXT: phobos_cluster.apply @init(%[[Y]]) scalars [@alpha]
  // CHECK-NEXT: phobos_cluster.loop %[[C:.*]] in "N" / "S" {
  // CHECK-NEXT: %[[XS:.*]] = phobos_cluster.ref read @x [%[[C]]]
  // CHECK-NEXT: %[[W:.*]] = phobos_cluster.ref read @w []
  // CHECK-NEXT: phobos_cluster.apply @step(%[[XS]], %[[W]], %[[Y]])
  phobos_cluster.units (%x) in ["N" / "S"] {
    %y = phobos_cluster.ref rmw @y [%x]
    phobos_cluster.apply @init(%y) scalars [@alpha]
    phobos_cluster.loop %chunk in "N" / "S" {
      %xs = phobos_cluster.ref read @x [%chunk]
      %w = phobos_cluster.ref read @w []
      phobos_cluster.apply @step(%xs, %w, %y)
    }
  }

  // CHECK: phobos.kernel @init
  phobos.kernel @init(%y: !phobos.tensor<?xf32> {phobos.dims = ["N"], phobos.name = "y"}, %alpha: f32 {phobos.name = "alpha"}) {
    %c0 = arith.constant 0 : i32
    %t = phobos.load %y[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<4xf32>
    %s = phobos.mul %alpha, %t : f32, !phobos.tile<4xf32>
    phobos.store %s, %y[%c0] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }
  // CHECK: phobos.kernel @step
  phobos.kernel @step(%x: !phobos.tensor<?xf32> {phobos.dims = ["N"], phobos.name = "x"}, %w: !phobos.tensor<16xf32> {phobos.dims = ["D"], phobos.name = "w"}, %y: !phobos.tensor<?xf32> {phobos.dims = ["N"], phobos.name = "y"}) {
    %c0 = arith.constant 0 : i32
    %a = phobos.load %x[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<4xf32>
    %b = phobos.load %y[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<4xf32>
    %s = phobos.add %a, %b : !phobos.tile<4xf32>, !phobos.tile<4xf32>
    phobos.store %s, %y[%c0] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }

  // CHECK: phobos_cluster.node 0 attributes {peak_bytes = 96 : i64} {
  // CHECK-NEXT: %[[YB:.*]], %[[T0:.*]] = phobos_cluster.allocate @y [0] : !phobos_cluster.buffer<4xf32>
  // CHECK-NEXT: %[[T1:.*]] = phobos_cluster.load %[[YB]] after [%[[T0]]] : !phobos_cluster.buffer<4xf32>
  // CHECK-NEXT: %[[T2:.*]] = phobos_cluster.compute @init(%[[YB]]) scalars [@alpha] after [%[[T1]]] : !phobos_cluster.buffer<4xf32>
  // CHECK-NEXT: %[[XB:.*]], %[[T3:.*]] = phobos_cluster.allocate @x [0] : !phobos_cluster.buffer<4xf32>
  // CHECK-NEXT: %[[T4:.*]] = phobos_cluster.load %[[XB]] after [%[[T3]]]
  // CHECK-NEXT: %[[WB:.*]], %[[T5:.*]] = phobos_cluster.allocate @w [] : !phobos_cluster.buffer<16xf32>
  // CHECK-NEXT: %[[T6:.*]] = phobos_cluster.load %[[WB]] after [%[[T5]]]
  // CHECK-NEXT: %[[T7:.*]] = phobos_cluster.compute @step(%[[XB]], %[[WB]], %[[YB]]) after [%[[T4]], %[[T6]], %[[T2]]] : !phobos_cluster.buffer<4xf32>, !phobos_cluster.buffer<16xf32>, !phobos_cluster.buffer<4xf32>
  // CHECK-NEXT: phobos_cluster.free %[[XB]] serves 1 after [%[[T7]]]
  // CHECK-NEXT: phobos_cluster.free %[[WB]] serves 1 after [%[[T7]]]
  // CHECK-NEXT: %[[T8:.*]] = phobos_cluster.store %[[YB]] after [%[[T7]]]
  // CHECK-NEXT: phobos_cluster.free %[[YB]] after [%[[T8]]]
  phobos_cluster.node 0 attributes {peak_bytes = 96 : i64} {
    %y, %t0 = phobos_cluster.allocate @y [0] : !phobos_cluster.buffer<4xf32>
    %t1 = phobos_cluster.load %y after [%t0] : !phobos_cluster.buffer<4xf32>
    %t2 = phobos_cluster.compute @init(%y) scalars [@alpha] after [%t1] : !phobos_cluster.buffer<4xf32>
    %x, %t3 = phobos_cluster.allocate @x [0] : !phobos_cluster.buffer<4xf32>
    %t4 = phobos_cluster.load %x after [%t3] : !phobos_cluster.buffer<4xf32>
    %w, %t5 = phobos_cluster.allocate @w [] : !phobos_cluster.buffer<16xf32>
    %t6 = phobos_cluster.load %w after [%t5] : !phobos_cluster.buffer<16xf32>
    %t7 = phobos_cluster.compute @step(%x, %w, %y) after [%t4, %t6, %t2] : !phobos_cluster.buffer<4xf32>, !phobos_cluster.buffer<16xf32>, !phobos_cluster.buffer<4xf32>
    %t8 = phobos_cluster.free %x serves 1 after [%t7] : !phobos_cluster.buffer<4xf32>
    %t9 = phobos_cluster.free %w serves 1 after [%t7] : !phobos_cluster.buffer<16xf32>
    %t10 = phobos_cluster.store %y after [%t7] : !phobos_cluster.buffer<4xf32>
    %t11 = phobos_cluster.free %y after [%t10] : !phobos_cluster.buffer<4xf32>
  }

  // CHECK: phobos_cluster.node 1 {
  // CHECK-NEXT: phobos_cluster.allocate @y [1] zero : !phobos_cluster.buffer<4xf32>
  // CHECK: phobos_cluster.fetch %{{.*}} from 0 after [%{{.*}}] : !phobos_cluster.buffer<4xf32>
  phobos_cluster.node 1 {
    %y, %t0 = phobos_cluster.allocate @y [1] zero : !phobos_cluster.buffer<4xf32>
    %t2 = phobos_cluster.compute @init(%y) scalars [@alpha] after [%t0] : !phobos_cluster.buffer<4xf32>
    %x, %t3 = phobos_cluster.allocate @x [0] : !phobos_cluster.buffer<4xf32>
    %t4 = phobos_cluster.fetch %x from 0 after [%t3] : !phobos_cluster.buffer<4xf32>
    %w, %t5 = phobos_cluster.allocate @w [] : !phobos_cluster.buffer<16xf32>
    %t6 = phobos_cluster.fetch %w from 0 after [%t5] : !phobos_cluster.buffer<16xf32>
    %t7 = phobos_cluster.compute @step(%x, %w, %y) after [%t4, %t6, %t2] : !phobos_cluster.buffer<4xf32>, !phobos_cluster.buffer<16xf32>, !phobos_cluster.buffer<4xf32>
    %t8 = phobos_cluster.free %x after [%t7] : !phobos_cluster.buffer<4xf32>
    %t9 = phobos_cluster.free %w after [%t7] : !phobos_cluster.buffer<16xf32>
    %t10 = phobos_cluster.store %y after [%t7] : !phobos_cluster.buffer<4xf32>
    %t11 = phobos_cluster.free %y after [%t10] : !phobos_cluster.buffer<4xf32>
  }
}

// The marks the front end leaves for the split.

// CHECK-LABEL: phobos.kernel @marked
// CHECK-SAME: phobos_cluster.marked
// CHECK: arith.constant {phobos_cluster.dim = "B"} 16 : i32
// CHECK: phobos.load {{.*}} {phobos_cluster.extents = ["B"]}
phobos.kernel @marked(%a: !phobos.tensor<?xf32> {phobos.dims = ["N"], phobos.name = "a"}) attributes {autotune = [#phobos.tune_dim<"B", [16]>], cluster = [#phobos.tune_dim<"B", [1024]>], phobos_cluster.marked, variant = {B = 16 : i64}} {
  %x = phobos.block_id x
  %b = arith.constant {phobos_cluster.dim = "B"} 16 : i32
  %o = arith.muli %x, %b : i32
  %t = phobos.load %a[%o] {phobos_cluster.extents = ["B"]} : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
  phobos.store %t, %a[%o] {phobos_cluster.extents = ["B"]} : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
  phobos.return
}
