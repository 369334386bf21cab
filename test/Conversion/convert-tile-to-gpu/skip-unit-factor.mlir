// RUN: phobos-opt %s --convert-tile-to-gpu | FileCheck %s

// A product marked by tile-guard-rescale: the thread multiplies only when
// one of its factors is not exactly 1 (une: NaN multiplies too); otherwise
// the tile's registers are the result.

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @rescale
// A thread holds two rows, four columns each: one test per row.
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NE0:.*]] = arith.cmpf une, %[[F0:.*]], %[[ONE]] : f32
// CHECK-NEXT: %[[NE1:.*]] = arith.cmpf une, %[[F1:.*]], %[[ONE]] : f32
// CHECK-NEXT: %[[NE:.*]] = arith.ori %[[NE0]], %[[NE1]] : i1
// CHECK-NEXT: %{{.*}}:8 = scf.if %[[NE]] -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %[[F0]], %[[T0:[^ ]*]] : f32
// CHECK-COUNT-3: arith.mulf %[[F0]]
// CHECK-COUNT-4: arith.mulf %[[F1]]
// CHECK-NEXT: scf.yield %[[P0]], {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[T0]], {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32
// CHECK-NEXT: }
phobos.kernel @rescale(%X: !phobos.tensor<?x?xf32>, %O: !phobos.tensor<?x?xf32>) attributes {phobos.barriers} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32, #l>
  %m = phobos.reduce max %x along 1 : !phobos.tile<16x32xf32, #l> -> !phobos.tile<16x1xf32, #l>
  %r = phobos.mul %m, %x {phobos.skip_unit_factor} : !phobos.tile<16x1xf32, #l>, !phobos.tile<16x32xf32, #l>
  phobos.store %r, %O[%c0, %c0] : !phobos.tile<16x32xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}
