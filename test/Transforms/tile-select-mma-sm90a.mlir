// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-select-mma{chip=sm_90a}))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-select-mma{chip=sm_90}))' --split-input-file | FileCheck %s --check-prefix=SM90

// On sm_90a, tensor-core dots that whole warpgroups can run become wgmma:
// the CTA is whole warpgroups, each warp owns 16 rows (M = 16 x warps), N
// is a multiple of 16 up to 256 (and K of 16, of 8 for tf32, as for
// mma.sync). Everything else is chosen as on other chips; sm_90 (no `a`)
// has no wgmma.

// CHECK-LABEL: phobos.kernel @fits
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x128xf16> -> !phobos.tile<64x128xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(wgmma) : !phobos.tile<64x16xbf16>, !phobos.tile<16x256xbf16> -> !phobos.tile<64x256xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} transpose_b kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<48x32xf16> -> !phobos.tile<64x48xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(f16) kind(wgmma) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(wgmma) : !phobos.tile<64x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<64x64xf32>
// SM90-LABEL: phobos.kernel @fits
// SM90-COUNT-5: kind(mma_sync)
phobos.kernel @fits(%h: f16, %b: bf16, %x: f32) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %h : !phobos.tile<64x32xf16>
  %bb = phobos.fill %h : !phobos.tile<32x128xf16>
  %d0 = phobos.dot %a, %bb : !phobos.tile<64x32xf16>, !phobos.tile<32x128xf16> -> !phobos.tile<64x128xf32>
  %abf = phobos.fill %b : !phobos.tile<64x16xbf16>
  %bbf = phobos.fill %b : !phobos.tile<16x256xbf16>
  %d1 = phobos.dot %abf, %bbf : !phobos.tile<64x16xbf16>, !phobos.tile<16x256xbf16> -> !phobos.tile<64x256xf32>
  %bt = phobos.fill %h : !phobos.tile<48x32xf16>
  %d2 = phobos.dot %a, %bt transpose_b : !phobos.tile<64x32xf16>, !phobos.tile<48x32xf16> -> !phobos.tile<64x48xf32>
  %af = phobos.fill %x : !phobos.tile<64x16xf32>
  %bf = phobos.fill %x : !phobos.tile<16x64xf32>
  %d3 = phobos.dot %af, %bf precision(f16) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
  %a8 = phobos.fill %x : !phobos.tile<64x8xf32>
  %b8 = phobos.fill %x : !phobos.tile<8x64xf32>
  %d4 = phobos.dot %a8, %b8 precision(tf32) : !phobos.tile<64x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<64x64xf32>
  phobos.return
}

// -----

// Shapes a warpgroup cannot run keep mma.sync: 32 rows per warp (M = 128
// with 4 warps), N = 8 (not a multiple of 16), N = 512 (more than 256);
// tf32 with 32 rows per warp as well.
// CHECK-LABEL: phobos.kernel @falls_back
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<128x32xf16>, !phobos.tile<32x64xf16> -> !phobos.tile<128x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<64x32xf16>, !phobos.tile<32x8xf16> -> !phobos.tile<64x8xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<64x32xf16>, !phobos.tile<32x512xf16> -> !phobos.tile<64x512xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(mma_sync) : !phobos.tile<128x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<128x64xf32>
phobos.kernel @falls_back(%h: f16, %x: f32) attributes {max_threads = 128 : i32} {
  %a128 = phobos.fill %h : !phobos.tile<128x32xf16>
  %b64 = phobos.fill %h : !phobos.tile<32x64xf16>
  %d0 = phobos.dot %a128, %b64 : !phobos.tile<128x32xf16>, !phobos.tile<32x64xf16> -> !phobos.tile<128x64xf32>
  %a = phobos.fill %h : !phobos.tile<64x32xf16>
  %b8 = phobos.fill %h : !phobos.tile<32x8xf16>
  %d1 = phobos.dot %a, %b8 : !phobos.tile<64x32xf16>, !phobos.tile<32x8xf16> -> !phobos.tile<64x8xf32>
  %b512 = phobos.fill %h : !phobos.tile<32x512xf16>
  %d2 = phobos.dot %a, %b512 : !phobos.tile<64x32xf16>, !phobos.tile<32x512xf16> -> !phobos.tile<64x512xf32>
  %af = phobos.fill %x : !phobos.tile<128x16xf32>
  %bf = phobos.fill %x : !phobos.tile<16x64xf32>
  %d3 = phobos.dot %af, %bf precision(tf32) : !phobos.tile<128x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<128x64xf32>
  phobos.return
}

// -----

// Warps that are not whole warpgroups (2 warps, 32 rows) keep mma.sync.
// CHECK-LABEL: phobos.kernel @two_warps
// CHECK: kind(mma_sync)
phobos.kernel @two_warps(%h: f16) attributes {max_threads = 64 : i32} {
  %a = phobos.fill %h : !phobos.tile<32x32xf16>
  %b = phobos.fill %h : !phobos.tile<32x64xf16>
  %d = phobos.dot %a, %b : !phobos.tile<32x32xf16>, !phobos.tile<32x64xf16> -> !phobos.tile<32x64xf32>
  phobos.return
}

// -----

// Three warpgroups (12 warps, M = 192) stack along M for wgmma. On sm_90
// (no wgmma) mma.sync takes them as a grid that is not a power of two
// (6 x 2 warps, 32 x 32 a warp), not FMA.
// CHECK-LABEL: phobos.kernel @three_warpgroups
// CHECK: kind(wgmma)
// SM90-LABEL: phobos.kernel @three_warpgroups
// SM90: kind(mma_sync)
phobos.kernel @three_warpgroups(%h: f16) attributes {max_threads = 384 : i32} {
  %a = phobos.fill %h : !phobos.tile<192x64xf16>
  %b = phobos.fill %h : !phobos.tile<64x64xf16>
  %d = phobos.dot %a, %b transpose_b : !phobos.tile<192x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<192x64xf32>
  phobos.return
}

// -----

// A tf32 B stored [K, N] cannot be read by wgmma from shared memory as it
// is, so a dot that accumulates alone into its loop's tile (a GEMM's main
// loop) computes the transpose: swap_ab, with N = 16 x warps (here 64 with 4
// warps; M = 192 is then the instruction's N). The same shape outside such
// a loop, or with its accumulator read elsewhere in the loop (attention's
// output, rescaled each step), keeps the layouts other ops share: M = 192
// is not 16 x warps, so mma.sync. A transposed B (K-major already) and f16
// operands never swap.
// CHECK-LABEL: phobos.kernel @swap_ab
// CHECK: scf.for
// CHECK-NEXT: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} precision(tf32) kind(wgmma) swap_ab : !phobos.tile<192x8xf32>, !phobos.tile<8x64xf32>, !phobos.tile<192x64xf32> -> !phobos.tile<192x64xf32>
// CHECK: scf.for
// CHECK: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} precision(tf32) kind(mma_sync) :
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(mma_sync) : !phobos.tile<192x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<192x64xf32>
// CHECK: scf.for
// CHECK-NEXT: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} precision(tf32) transpose_b kind(mma_sync) :
// CHECK: scf.for
// CHECK-NEXT: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<192x16xf16>
// SM90-LABEL: phobos.kernel @swap_ab
// SM90-NOT: swap_ab
phobos.kernel @swap_ab(%x: f32, %h: f16, %n: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = phobos.fill %x : !phobos.tile<192x8xf32>
  %b = phobos.fill %x : !phobos.tile<8x64xf32>
  %zero = phobos.fill %x : !phobos.tile<192x64xf32>
  %r0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!phobos.tile<192x64xf32>) : i32 {
    %d = phobos.dot %a, %b, %acc precision(tf32) : !phobos.tile<192x8xf32>, !phobos.tile<8x64xf32>, !phobos.tile<192x64xf32> -> !phobos.tile<192x64xf32>
    scf.yield %d : !phobos.tile<192x64xf32>
  }
  %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!phobos.tile<192x64xf32>) : i32 {
    %scaled = phobos.mul %acc, %acc : !phobos.tile<192x64xf32>, !phobos.tile<192x64xf32>
    %d = phobos.dot %a, %b, %scaled precision(tf32) : !phobos.tile<192x8xf32>, !phobos.tile<8x64xf32>, !phobos.tile<192x64xf32> -> !phobos.tile<192x64xf32>
    scf.yield %d : !phobos.tile<192x64xf32>
  }
  %once = phobos.dot %a, %b precision(tf32) : !phobos.tile<192x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<192x64xf32>
  %bt = phobos.fill %x : !phobos.tile<64x8xf32>
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!phobos.tile<192x64xf32>) : i32 {
    %d = phobos.dot %a, %bt, %acc precision(tf32) transpose_b : !phobos.tile<192x8xf32>, !phobos.tile<64x8xf32>, !phobos.tile<192x64xf32> -> !phobos.tile<192x64xf32>
    scf.yield %d : !phobos.tile<192x64xf32>
  }
  %ah = phobos.fill %h : !phobos.tile<192x16xf16>
  %bh = phobos.fill %h : !phobos.tile<16x64xf16>
  %r3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!phobos.tile<192x64xf32>) : i32 {
    %d = phobos.dot %ah, %bh, %acc : !phobos.tile<192x16xf16>, !phobos.tile<16x64xf16>, !phobos.tile<192x64xf32> -> !phobos.tile<192x64xf32>
    scf.yield %d : !phobos.tile<192x64xf32>
  }
  phobos.return
}
