// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-persistent))' --split-input-file --verify-diagnostics | FileCheck %s

// A @persistent GEMM: the tile grid (ceil(M / 64) by ceil(N / 32), from
// the slices of A, B and C) is computed from the extents, the CTAs walk it
// from their x index by the launched grid's x extent, and each tile's body
// reads the tile's coordinates (in the same grouped order) and the tile
// grid's extent where the source read the CTA's.
// CHECK-LABEL: phobos.kernel @gemm
// CHECK:      %[[M:.*]] = phobos.dim %arg0[0]
// CHECK:      %[[TM:.*]] = arith.ceildivsi %[[M]], %c64
// CHECK:      %[[MC:.*]] = phobos.dim %arg2[0]
// CHECK:      %[[TMC:.*]] = arith.ceildivsi %[[MC]], %c64
// CHECK:      %[[GX0:.*]] = arith.maxsi %[[TM]], %[[TMC]]
// CHECK:      %[[GX:.*]] = arith.maxsi %[[GX0]], %c1
// CHECK:      %[[N:.*]] = phobos.dim %arg1[1]
// CHECK:      arith.ceildivsi %[[N]], %c32
// CHECK:      %[[NC:.*]] = phobos.dim %arg2[1]
// CHECK:      arith.ceildivsi %[[NC]], %c32
// CHECK:      %[[GY:.*]] = arith.maxsi %{{.*}}, %c1
// CHECK:      %[[TILES:.*]] = arith.muli %[[GX]], %[[GY]]
// CHECK-NEXT: %[[FIRST:.*]] = phobos.block_id x
// CHECK-NEXT: %[[CTAS:.*]] = phobos.grid_dim x
// CHECK-NEXT: scf.for %[[T:.*]] = %[[FIRST]] to %[[TILES]] step %[[CTAS]]
// CHECK:        %[[X:.*]] = phobos.tile_coord x of %[[T]] in %[[GX]], %[[GY]] group 8
// CHECK-NEXT:   %[[Y:.*]] = phobos.tile_coord y of %[[T]] in %[[GX]], %[[GY]] group 8
// CHECK-NEXT:   %[[M0:.*]] = arith.muli %[[X]], %c64
// CHECK-NEXT:   %[[N0:.*]] = arith.muli %[[Y]], %c32
// CHECK:        phobos.load %arg0[%[[M0]],
// CHECK:        %[[SUM:.*]] = arith.addi %[[GY]], %[[GX]]
// CHECK-NEXT:   phobos.store_scalar %[[SUM]]
// CHECK-NEXT:   phobos.store %{{.*}}, %arg2[%[[M0]], %[[N0]]]
// CHECK-NEXT: } {phobos.tile_loop}
// CHECK-NEXT: phobos.return
phobos.kernel @gemm(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>,
                    %C: !phobos.tensor<?x?xf32>, %S: !phobos.tensor<?xi32>)
    attributes {persistent} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %bx = phobos.block_id x group 8
  %by = phobos.block_id y group 8
  %m0 = arith.muli %bx, %c64 : i32
  %n0 = arith.muli %by, %c32 : i32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x32xf32>
  %r = scf.for %kt = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x32xf32>) : i32 {
    %a = phobos.load %A[%m0, %kt] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
    %b = phobos.load %B[%kt, %n0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
    %d = phobos.dot %a, %b, %acc : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
    scf.yield %d : !phobos.tile<64x32xf32>
  }
  // The grid's extents: the tile grid's.
  %gx = phobos.grid_dim x
  %gy = phobos.grid_dim y
  %sum = arith.addi %gy, %gx : i32
  phobos.store_scalar %sum, %S[%c0] : !phobos.tensor<?xi32>
  phobos.store %r, %C[%m0, %n0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Without @persistent the kernel is left alone.
// CHECK-LABEL: phobos.kernel @plain
// CHECK-NOT: scf.for
// CHECK: phobos.block_id x
// CHECK-NOT: tile_coord
phobos.kernel @plain(%X: !phobos.tensor<?xf32>) {
  %c64 = arith.constant 64 : i32
  %bx = phobos.block_id x
  %x0 = arith.muli %bx, %c64 : i32
  %t = phobos.load %X[%x0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
  phobos.store %t, %X[%x0] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// A block index that offsets no slice: the launcher could not tell the
// number of tiles.
// expected-error @+1 {{@persistent needs the grid to follow from the kernel's slices, but ctx.block.y offsets no load or store}}
phobos.kernel @unknown(%X: !phobos.tensor<?xf32>) attributes {persistent} {
  %c64 = arith.constant 64 : i32
  %bx = phobos.block_id x
  %by = phobos.block_id y
  %x0 = arith.muli %bx, %c64 : i32
  %x1 = arith.addi %x0, %by : i32
  %t = phobos.load %X[%x1] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
  phobos.store %t, %X[%x0] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
  phobos.return
}
