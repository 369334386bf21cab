// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-check-registers))' --split-input-file -verify-diagnostics | FileCheck %s

// A 128x128 f32 accumulator over 256 threads is 64 registers a thread of
// the 255 it has: nothing changes.
// CHECK-LABEL: phobos.kernel @fits
// CHECK: phobos.fill
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
phobos.kernel @fits(%C: !phobos.tensor<?x?xf32>) attributes {max_threads = 256 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %acc = phobos.fill %zero : !phobos.tile<128x128xf32, #mma>
  phobos.store %acc, %C[%c0, %c0] : !phobos.tile<128x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// 256x256 over 256 threads is 256 registers a thread: the error is at the
// op that makes the tile (the accumulator's fill), not at its later uses.
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
phobos.kernel @accumulator(%C: !phobos.tensor<?x?xf32>) attributes {max_threads = 256 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  // expected-error@+1 {{tile<f32>[256, 256] takes 256 registers per thread in its layout (65536 elements over 256 threads), and a thread has 255 at most (PTX's limit), nothing left for anything else: ptxas would spill it or refuse the kernel; use smaller tiles (a smaller @autotune value) or more threads (@launch)}}
  %acc = phobos.fill %zero : !phobos.tile<256x256xf32, #mma>
  %twice = arith.addf %acc, %acc : !phobos.tile<256x256xf32, #mma>
  phobos.store %twice, %C[%c0, %c0] : !phobos.tile<256x256xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Over 512 threads a thread may use 65536 / 512 = 128 registers; the same
// accumulator takes 128 of them (ptxas: "Insufficient registers").
#mma = #phobos.mma<warpsPerCTA = [4, 4]>
phobos.kernel @many_threads(%C: !phobos.tensor<?x?xf32>) attributes {max_threads = 512 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  // expected-error@+1 {{tile<f32>[256, 256] takes 128 registers per thread in its layout (65536 elements over 512 threads), and a thread has 128 at most (65536 per SM over 512 threads)}}
  %acc = phobos.fill %zero : !phobos.tile<256x256xf32, #mma>
  phobos.store %acc, %C[%c0, %c0] : !phobos.tile<256x256xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Two CTAs per SM (@launch's minBlocks) halve what a thread may use: 64
// registers of 128 fit, at 256 threads the 128x256 accumulator's 128 do not.
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
phobos.kernel @two_ctas(%C: !phobos.tensor<?x?xf32>) attributes {max_threads = 256 : i32, min_blocks = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %small = phobos.fill %zero : !phobos.tile<128x128xf32, #mma>
  phobos.store %small, %C[%c0, %c0] : !phobos.tile<128x128xf32, #mma>, !phobos.tensor<?x?xf32>
  // expected-error@+1 {{tile<f32>[128, 256] takes 128 registers per thread in its layout (32768 elements over 256 threads), and a thread has 128 at most (65536 per SM over 512 threads)}}
  %big = phobos.fill %zero : !phobos.tile<128x256xf32, #mma>
  phobos.store %big, %C[%c0, %c0] : !phobos.tile<128x256xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A layout that replicates counts every copy a thread holds: one row of
// 4096 f32 in a layout of 128 rows is held whole by every thread, 4096
// registers each. 16-bit elements
// take half a register, so 256x256 f16 over 256 threads (128) fits.
#row = #phobos.blocked<sizePerThread = [1, 4096], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#half = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
phobos.kernel @replicated(%X: !phobos.tensor<?x?xf32>, %H: !phobos.tensor<?x?xf16>) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %h = phobos.load %H[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<256x256xf16, #half>
  phobos.store %h, %H[%c0, %c0] : !phobos.tile<256x256xf16, #half>, !phobos.tensor<?x?xf16>
  // expected-error@+1 {{tile<f32>[1, 4096] takes 4096 registers per thread in its layout (4096 elements over 128 threads)}}
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<1x4096xf32, #row>
  phobos.store %x, %X[%c0, %c0] : !phobos.tile<1x4096xf32, #row>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// An mma.sync dot holds its accumulator and, for operands in shared
// memory, two k-steps of fragments (a warp block's rows / 4 registers of A
// and columns / 4 of B a step), and its loop keeps an eighth of the
// registers: 192 x 256 over 12 warps (64 x 64 a warp) needs 128 + 2 x 32
// + 21 of the 170 a thread has at 384 threads (ptxas spilled 52-156 bytes).
#mma = #phobos.mma<warpsPerCTA = [3, 4]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4]>
#sb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8]>
phobos.kernel @mma_fragments(%C: !phobos.tensor<?x?xf32>) attributes {max_threads = 384 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %as = phobos.local_buffer : !phobos.smem<2x192x32xf16, #sa>
  %a = phobos.buffer_slot %as[%c0] lag 0 : !phobos.smem<2x192x32xf16, #sa> -> !phobos.smem<192x32xf16, #sa>
  %bs = phobos.local_buffer : !phobos.smem<2x32x256xf16, #sb>
  %b = phobos.buffer_slot %bs[%c0] lag 0 : !phobos.smem<2x32x256xf16, #sb> -> !phobos.smem<32x256xf16, #sb>
  %acc = phobos.fill %zero : !phobos.tile<192x256xf32, #mma>
  // expected-error@+1 {{mma.sync on tile<f32>[192, 256] over 384 threads (3 x 4 warps, 64 x 64 a warp) needs about 213 registers per thread (accumulator 128, operand fragments 64, loop 21), and a thread has 170: ptxas would spill; use smaller tiles (a smaller @autotune value) or more threads (@launch)}}
  %d = phobos.dot %a, %b, %acc kind(mma_sync) : !phobos.smem<192x32xf16, #sa>, !phobos.smem<32x256xf16, #sb>, !phobos.tile<192x256xf32, #mma> -> !phobos.tile<192x256xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<192x256xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// 192 x 128 over the same 12 warps (64 x 32 a warp): 64 + 2 x 24 + 21 of
// 170 fit (ptxas: 156-168 registers, no spill). A wgmma dot's operands stay
// in shared memory: only its accumulator counts.
// CHECK-LABEL: phobos.kernel @mma_fits
// CHECK: kind(mma_sync)
// CHECK: kind(wgmma)
#mma = #phobos.mma<warpsPerCTA = [3, 4]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4]>
#sb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8]>
phobos.kernel @mma_fits(%C: !phobos.tensor<?x?xf32>) attributes {max_threads = 384 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %as = phobos.local_buffer : !phobos.smem<2x192x32xf16, #sa>
  %a = phobos.buffer_slot %as[%c0] lag 0 : !phobos.smem<2x192x32xf16, #sa> -> !phobos.smem<192x32xf16, #sa>
  %bs = phobos.local_buffer : !phobos.smem<2x32x128xf16, #sb>
  %b = phobos.buffer_slot %bs[%c0] lag 0 : !phobos.smem<2x32x128xf16, #sb> -> !phobos.smem<32x128xf16, #sb>
  %acc = phobos.fill %zero : !phobos.tile<192x128xf32, #mma>
  %d = phobos.dot %a, %b, %acc kind(mma_sync) : !phobos.smem<192x32xf16, #sa>, !phobos.smem<32x128xf16, #sb>, !phobos.tile<192x128xf32, #mma> -> !phobos.tile<192x128xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<192x128xf32, #mma>, !phobos.tensor<?x?xf32>
  %b2s = phobos.local_buffer : !phobos.smem<2x32x256xf16, #sb>
  %b2 = phobos.buffer_slot %b2s[%c0] lag 0 : !phobos.smem<2x32x256xf16, #sb> -> !phobos.smem<32x256xf16, #sb>
  %acc2 = phobos.fill %zero : !phobos.tile<192x256xf32, #mma>
  %d2 = phobos.dot %a, %b2, %acc2 kind(wgmma) : !phobos.smem<192x32xf16, #sa>, !phobos.smem<32x256xf16, #sb>, !phobos.tile<192x256xf32, #mma> -> !phobos.tile<192x256xf32, #mma>
  phobos.store %d2, %C[%c0, %c0] : !phobos.tile<192x256xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}
