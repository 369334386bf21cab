// RUN: phobos-translate --import-phobos %s --cluster | FileCheck %s
// RUN: phobos-translate --import-phobos %s | FileCheck %s --check-prefix=PLAIN
// RUN: phobos-translate --import-phobos %s --cluster | phobos-opt --verify-roundtrip | FileCheck %s

// --cluster marks, in kernels with @cluster, the constants that spell an
// @cluster name, the slices whose extent is one (per tensor axis) and the
// kernel, for --phobos-cluster-split. Without it nothing is marked.

// CHECK-LABEL: phobos.kernel @matmul
// CHECK-SAME: phobos_cluster.marked
// CHECK: %[[PM:.*]] = phobos.block_id x
// CHECK: arith.constant {phobos_cluster.dim = "TILE_K"} 4 : i32
// CHECK: scf.for
// CHECK: %[[TM:.*]] = arith.constant {phobos_cluster.dim = "TILE_M"} 32 : i32
// CHECK: arith.muli %[[PM]], %[[TM]]
// CHECK: phobos.load {{.*}} {phobos_cluster.extents = ["TILE_M", "TILE_K"]}
// CHECK: phobos.load {{.*}} {phobos_cluster.extents = ["TILE_K", "TILE_N"]}
// The literal 8 and the @autotune-only name BC are not marked.
// CHECK: phobos.load {{.*}} {phobos_cluster.extents = ["TILE_M", ""]}
// CHECK: phobos.store {{.*}} {phobos_cluster.extents = ["TILE_M", "TILE_N"]}
// CHECK-LABEL: phobos.kernel @plain
// CHECK-NOT: phobos_cluster
// CHECK: phobos.return

// PLAIN-NOT: phobos_cluster
@cluster(TILE_M in [4096, 16384], TILE_N in [4096, 16384], TILE_K in [4096, 16384])
@autotune(TILE_M in [32, 256], TILE_N in [32, 256], TILE_K in [4, 32], BC in [8])
kernel matmul(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N], E: tensor<f32>[M, N]) {
    let pm = ctx.block.x
    let pn = ctx.block.y
    var acc: tile<f32>[TILE_M, TILE_N] = 0.0
    for kt in range(0, K, TILE_K) {
        let a = A[pm * TILE_M :+ TILE_M, kt :+ TILE_K]
        let b = B[kt :+ TILE_K, pn * TILE_N :+ TILE_N]
        acc += dot(a, b)
    }
    let e = E[pm * TILE_M :+ TILE_M, 0 :+ BC]
    C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = acc
}

@autotune(BLOCK in [16])
kernel plain(x: tensor<f32>[N]) {
    x[ctx.block.x * BLOCK :+ BLOCK] = x[ctx.block.x * BLOCK :+ BLOCK]
}
