// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-choose-cta{chip=sm_90a}))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-choose-cta{chip=sm_90}))' --split-input-file | FileCheck %s --check-prefix=SM90
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-choose-cta{chip=sm_90a},tile-select-mma{chip=sm_90a}))' --split-input-file | FileCheck %s --check-prefix=MMA

// On sm_90a a kernel whose f16 dots all have 64 rows gets one warpgroup
// (128 threads), and then every dot is a wgmma; on sm_90 (no wgmma) it keeps
// the default 256 threads.
// CHECK-LABEL: phobos.kernel @rows64
// CHECK-SAME: max_threads = 128 : i32
// SM90-LABEL: phobos.kernel @rows64
// SM90-SAME: max_threads = 256 : i32
// MMA-LABEL: phobos.kernel @rows64
// MMA-COUNT-2: kind(wgmma)
// MMA-NOT: kind(mma_sync)
phobos.kernel @rows64(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32>
  %d = phobos.dot %a, %b, %init : !phobos.tile<64x64xf16>, !phobos.tile<64x128xf16>, !phobos.tile<64x128xf32> -> !phobos.tile<64x128xf32>
  %e = phobos.dot %a, %a transpose_b : !phobos.tile<64x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<64x64xf32>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x128xf32>, !phobos.tensor<?x?xf32>
  phobos.store %e, %C[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// 128 rows: two warpgroups, the 256 threads a 128-row kernel had anyway.
// CHECK-LABEL: phobos.kernel @rows128
// CHECK-SAME: max_threads = 256 : i32
// MMA-LABEL: phobos.kernel @rows128
// MMA: kind(wgmma)
phobos.kernel @rows128(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x64xf16>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
  %d = phobos.dot %a, %b : !phobos.tile<128x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<128x64xf32>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<128x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Dots of different heights (64 and 128 rows), an f32 dot without
// @tensorcore, and N past wgmma's 256 keep the default; so does @launch.
// CHECK-LABEL: phobos.kernel @mixed
// CHECK-SAME: max_threads = 256 : i32
// CHECK-LABEL: phobos.kernel @ieee
// CHECK-SAME: max_threads = 256 : i32
// CHECK-LABEL: phobos.kernel @wide
// CHECK-SAME: max_threads = 256 : i32
// CHECK-LABEL: phobos.kernel @given
// CHECK-SAME: max_threads = 512 : i32
phobos.kernel @mixed(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x64xf16>
  %d = phobos.dot %a, %a : !phobos.tile<64x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<64x64xf32>
  %e = phobos.dot %b, %a : !phobos.tile<128x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<128x64xf32>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.store %e, %C[%c0, %c0] : !phobos.tile<128x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
phobos.kernel @ieee(%A: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x64xf32>
  %d = phobos.dot %a, %a : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
  phobos.store %d, %A[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
phobos.kernel @wide(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
  %b = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x512xf16>
  %d = phobos.dot %a, %b : !phobos.tile<64x64xf16>, !phobos.tile<64x512xf16> -> !phobos.tile<64x512xf32>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x512xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
phobos.kernel @given(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 512 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
  %d = phobos.dot %a, %a : !phobos.tile<64x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<64x64xf32>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
