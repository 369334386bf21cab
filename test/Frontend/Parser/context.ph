// RUN: phobos-translate --import-phobos %s | FileCheck %s

// ctx.block.x/y/z: this CTA's index on each grid axis; program_id(0..2) is
// the older spelling of the same. ctx.grid.x/y/z: the number of CTAs.
kernel context(o: tensor<i32>[N]) {
    o[0] = ctx.block.x
    o[1] = ctx.block.y
    o[2] = ctx.block.z
    o[3] = ctx.grid.x
    o[4] = ctx.grid.y
    o[5] = ctx.grid.z
    o[6] = program_id(0)
    o[7] = program_id(1)
    o[8] = program_id(2)
}
// CHECK-LABEL: phobos.kernel @context
// CHECK: %[[BX:.*]] = phobos.block_id x
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT: phobos.store_scalar %[[BX]]
// CHECK: %[[BY:.*]] = phobos.block_id y
// CHECK-NEXT: %{{.*}} = arith.constant 1 : i32
// CHECK-NEXT: phobos.store_scalar %[[BY]]
// CHECK: %[[BZ:.*]] = phobos.block_id z
// CHECK-NEXT: %{{.*}} = arith.constant 2 : i32
// CHECK-NEXT: phobos.store_scalar %[[BZ]]
// CHECK: %[[GX:.*]] = phobos.grid_dim x
// CHECK-NEXT: %{{.*}} = arith.constant 3 : i32
// CHECK-NEXT: phobos.store_scalar %[[GX]]
// CHECK: %[[GY:.*]] = phobos.grid_dim y
// CHECK-NEXT: %{{.*}} = arith.constant 4 : i32
// CHECK-NEXT: phobos.store_scalar %[[GY]]
// CHECK: %[[GZ:.*]] = phobos.grid_dim z
// CHECK-NEXT: %{{.*}} = arith.constant 5 : i32
// CHECK-NEXT: phobos.store_scalar %[[GZ]]
// CHECK: %[[P0:.*]] = phobos.block_id x
// CHECK-NEXT: %{{.*}} = arith.constant 6 : i32
// CHECK-NEXT: phobos.store_scalar %[[P0]]
// CHECK: %[[P1:.*]] = phobos.block_id y
// CHECK-NEXT: %{{.*}} = arith.constant 7 : i32
// CHECK-NEXT: phobos.store_scalar %[[P1]]
// CHECK: %[[P2:.*]] = phobos.block_id z
// CHECK-NEXT: %{{.*}} = arith.constant 8 : i32
// CHECK-NEXT: phobos.store_scalar %[[P2]]

// Context values are i32 scalars usable in index arithmetic.
kernel offsets(A: tensor<f32>[M, N], B: tensor<f32>[M, N]) {
    let r = ctx.block.x * 16
    let c = ctx.block.y * 32 + ctx.grid.x
    B[r :+ 16, c :+ 32] = A[r :+ 16, c :+ 32]
}
// CHECK-LABEL: phobos.kernel @offsets
// CHECK: %[[X:.*]] = phobos.block_id x
// CHECK: %[[R:.*]] = arith.muli %[[X]], %{{.*}} : i32
// CHECK: %[[Y:.*]] = phobos.block_id y
// CHECK: %[[YS:.*]] = arith.muli %[[Y]], %{{.*}} : i32
// CHECK-NEXT: %[[G:.*]] = phobos.grid_dim x
// CHECK-NEXT: %[[C:.*]] = arith.addi %[[YS]], %[[G]] : i32
// CHECK: %[[T:.*]] = phobos.load %{{.*}}[%[[R]], %[[C]]] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
// CHECK: phobos.store %[[T]], %{{.*}}[%[[R]], %[[C]]]
