// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-check-resources))' --split-input-file -verify-diagnostics | FileCheck %s
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-check-resources{max-shared-bytes=101376}))' --split-input-file 2>&1 | FileCheck %s --check-prefix=SM86

// Tiles a thread can hold, dots and scratch within the chip's shared
// memory: nothing changes.
// CHECK-LABEL: phobos.kernel @fits
// CHECK: phobos.load
// CHECK: phobos.dot
phobos.kernel @fits(%A: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<128x32xf32>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x128xf32>
  %c = phobos.dot %a, %b : !phobos.tile<128x32xf32>, !phobos.tile<32x128xf32> -> !phobos.tile<128x128xf32>
  phobos.store %c, %A[%c0, %c0] : !phobos.tile<128x128xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// 2^20 elements over 256 threads are 4096 registers a thread: the error is
// at the op that makes the tile, with what fits.
phobos.kernel @too_many_registers(%x: !phobos.tensor<?xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{tile<f32>[1048576] needs 4096 registers per thread (1048576 elements over the CTA's 256 threads), more than the 1020 one tile may take (a thread has 255, the rest spills); at 256 threads a tile holds at most 261120 elements: use smaller tiles (a smaller @autotune value) or more threads (@launch)}}
  %t = phobos.load %x[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<1048576xf32>
  phobos.store %t, %x[%c0] : !phobos.tile<1048576xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// 64-bit elements take two registers each.
phobos.kernel @wide_elements(%x: !phobos.tensor<?xf64>) attributes {max_threads = 1024 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{tile<f64>[1048576] needs 2048 registers per thread (1048576 elements over the CTA's 1024 threads), more than the 1020 one tile may take (a thread has 255, the rest spills); at 1024 threads a tile holds at most 522240 elements}}
  %t = phobos.load %x[%c0] : !phobos.tensor<?xf64> -> !phobos.tile<1048576xf64>
  phobos.store %t, %x[%c0] : !phobos.tile<1048576xf64>, !phobos.tensor<?xf64>
  phobos.return
}

// -----

// A dot's operands are staged in shared memory together: 256 KiB + 16 KiB.
phobos.kernel @dot_operands(%A: !phobos.tensor<?x?xf32>) attributes {max_threads = 1024 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<256x256xf32>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<256x16xf32>
  // expected-error@+1 {{this dot stages its operands in shared memory: 262144 + 16384 bytes, more than the 232448 one CTA may use}}
  %c = phobos.dot %a, %b : !phobos.tile<256x256xf32>, !phobos.tile<256x16xf32> -> !phobos.tile<256x16xf32>
  phobos.store %c, %A[%c0, %c0] : !phobos.tile<256x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// The FMA lowering unrolls K for each accumulator a thread holds: 128
// accumulators times K = 1024.
phobos.kernel @dot_unroll(%A: !phobos.tensor<?x?xf16>) attributes {max_threads = 1024 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<512x1024xf16>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<1024x256xf16>
  // expected-error@+1 {{this dot unrolls to 131072 multiply-adds per thread (128 accumulators per thread times K = 1024), more than the 65536 Phobos unrolls}}
  %c = phobos.dot %a, %b : !phobos.tile<512x1024xf16>, !phobos.tile<1024x256xf16> -> !phobos.tile<512x256xf32>
  phobos.return
}

// -----

// A transpose passes its tile through the scratch region.
phobos.kernel @transpose_scratch(%x: !phobos.tensor<?x?xf32>) attributes {max_threads = 1024 : i32} {
  %c0 = arith.constant 0 : i32
  %t = phobos.load %x[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<512x256xf32>
  // expected-error@+1 {{'transpose' passes its tile through shared memory: 524288 bytes, more than the 232448 one CTA may use; use smaller tiles}}
  %u = phobos.transpose %t : !phobos.tile<512x256xf32> -> !phobos.tile<256x512xf32>
  phobos.return
}

// -----

// The chip decides: 128 KiB + 8 KiB of dot operands fit sm_90 (227 KiB)
// but not sm_86 (99 KiB).
// SM86: error: this dot stages its operands in shared memory: 131072 + 8192 bytes, more than the 101376 one CTA may use
phobos.kernel @chip_shared(%A: !phobos.tensor<?x?xf32>) attributes {max_threads = 1024 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<256x128xf32>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<128x16xf32>
  %c = phobos.dot %a, %b : !phobos.tile<256x128xf32>, !phobos.tile<128x16xf32> -> !phobos.tile<256x16xf32>
  phobos.store %c, %A[%c0, %c0] : !phobos.tile<256x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
