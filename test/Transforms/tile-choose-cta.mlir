// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-choose-cta))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-choose-cta,tile-assign-layouts))' --split-input-file | FileCheck %s --check-prefix=LAYOUT

// A row of 4096 f16 is 512 vectors of 16 bytes: 256 threads, each with two
// vectors of the row, and the row's reduction spans the 8 warps.
// CHECK-LABEL: phobos.kernel @row_f16
// CHECK-SAME: max_threads = 256 : i32
// LAYOUT-LABEL: phobos.kernel @row_f16
// LAYOUT: sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8]
phobos.kernel @row_f16(%X: !phobos.tensor<?x?xf16>, %Y: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<1x4096xf16>
  %w = phobos.cast %x : !phobos.tile<1x4096xf16> to !phobos.tile<1x4096xf32>
  %s = phobos.reduce sum %w along 1 : !phobos.tile<1x4096xf32> -> !phobos.tile<1x1xf32>
  phobos.store %s, %Y[%c0, %c0] : !phobos.tile<1x1xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// 1024 f16 are 128 vectors: 64 threads, raised to Triton's default of 4
// warps, as a small tile is; 4096 f32 are 1024 vectors: 512 threads; a long
// row at most 16 warps; a block of several rows keeps the default 256.
// CHECK-LABEL: phobos.kernel @row_1024
// CHECK-SAME: max_threads = 128 : i32
// CHECK-LABEL: phobos.kernel @small
// CHECK-SAME: max_threads = 128 : i32
// CHECK-LABEL: phobos.kernel @row_f32
// CHECK-SAME: max_threads = 512 : i32
// CHECK-LABEL: phobos.kernel @long_row
// CHECK-SAME: max_threads = 512 : i32
// CHECK-LABEL: phobos.kernel @block
// CHECK-SAME: max_threads = 256 : i32
phobos.kernel @row_1024(%X: !phobos.tensor<?x?xf16>) {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<1x1024xf16>
  phobos.store %x, %X[%c0, %c0] : !phobos.tile<1x1024xf16>, !phobos.tensor<?x?xf16>
  phobos.return
}
phobos.kernel @small(%X: !phobos.tensor<?xf32>) {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
  phobos.store %x, %X[%c0] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
  phobos.return
}
phobos.kernel @row_f32(%X: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<1x4096xf32>
  phobos.store %x, %X[%c0, %c0] : !phobos.tile<1x4096xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
phobos.kernel @long_row(%X: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<1x32768xf32>
  phobos.store %x, %X[%c0, %c0] : !phobos.tile<1x32768xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
phobos.kernel @block(%X: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x4096xf32>
  phobos.store %x, %X[%c0, %c0] : !phobos.tile<16x4096xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// @launch keeps its meaning; a kernel with a dot keeps the 256 its layouts
// are made for.
// CHECK-LABEL: phobos.kernel @given
// CHECK-SAME: max_threads = 64 : i32
// CHECK-LABEL: phobos.kernel @dots
// CHECK-SAME: max_threads = 256 : i32
phobos.kernel @given(%X: !phobos.tensor<?x?xf16>) attributes {max_threads = 64 : i32} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<1x4096xf16>
  phobos.store %x, %X[%c0, %c0] : !phobos.tile<1x4096xf16>, !phobos.tensor<?x?xf16>
  phobos.return
}
phobos.kernel @dots(%A: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %d = phobos.dot %a, %a, %init : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
  phobos.store %d, %A[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
