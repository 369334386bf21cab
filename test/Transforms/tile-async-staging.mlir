// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-async-staging))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-async-staging{mark-only=true}))' --split-input-file | FileCheck %s --check-prefix=MARK
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-async-staging,tile-allocate-shared,tile-insert-barriers))' --split-input-file | FileCheck %s --check-prefix=WAITS

// The remainder of a split K loop (tile-pipeline leaves it: it runs at
// most once) stages A and B through registers. Each load and its
// local_alloc become one asynchronous copy, where the load was, into a
// buffer of one slot that the dot reads; the masks stay the load's. The
// main loop's staged tiles (also load -> local_alloc here, as a kernel
// without @pipeline has them) become copies too; the tile staged before
// the loop, and the f32 tile staged transposed (a copy would move one
// 4-byte element at a time, where the registers store two at once), stay.
// CHECK-LABEL: phobos.kernel @gemm
// CHECK: %[[SX:.*]] = phobos.local_alloc %{{.*}} : !phobos.tile<32x128xf16, #{{.*}}> -> !phobos.smem<32x128xf16
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[FULL:.*]] step
// CHECK-NEXT: %[[BUF:.*]] = phobos.local_buffer : !phobos.smem<1x64x32xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[SA:.*]] = phobos.buffer_slot %[[BUF]][%[[C0]]] lag 0 : !phobos.smem<1x64x32xf16, {{.*}}> -> !phobos.smem<64x32xf16
// CHECK-NEXT: phobos.async_copy %{{.*}}[%{{.*}}, %[[K]]] into %[[SA]] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16>, !phobos.tile<64x32xf16, #{{.*}}>, !phobos.smem<64x32xf16
// CHECK: phobos.dot %[[SA]], %[[SX]]
// CHECK: scf.for %[[R:.*]] = %[[FULL]] to
// CHECK-NEXT: phobos.local_buffer : !phobos.smem<1x64x32xf16
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[RA:.*]] = phobos.buffer_slot
// CHECK-NEXT: phobos.async_copy %{{.*}}[%{{.*}}, %[[R]]] into %[[RA]] : !phobos.tensor<?x?xf16>
// CHECK-NEXT: phobos.local_buffer : !phobos.smem<1x32x128xf16
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[RB:.*]] = phobos.buffer_slot
// CHECK-NEXT: phobos.async_copy %{{.*}}[%[[R]], %{{.*}}] into %[[RB]]
// CHECK-NEXT: %[[T:.*]] = phobos.load %{{.*}}[%{{.*}}, %[[R]]] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32
// CHECK-NEXT: %[[ST:.*]] = phobos.local_alloc %[[T]]
// CHECK-NEXT: phobos.local_buffer : !phobos.smem<1x32x128xf32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[RG:.*]] = phobos.buffer_slot
// CHECK-NEXT: phobos.async_copy %{{.*}}[%[[R]], %{{.*}}] into %[[RG]]
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[RA]], %[[RB]]
// CHECK-NEXT: phobos.dot %[[ST]], %[[RG]], %[[D]]
// CHECK-NOT: phobos.async_copy

// mark-only converts nothing and marks the kernel for the drivers.
// MARK-LABEL: phobos.kernel @gemm
// MARK-SAME: phobos.register_staging
// MARK-NOT: phobos.async_copy
// MARK: phobos.return

// tile-insert-barriers then commits the copies and waits for them before
// the first reader, with a barrier so that every thread's copies are
// visible; the slot's next copy waits for the last reads (a barrier).
// WAITS-LABEL: phobos.kernel @gemm
// WAITS: scf.for
// WAITS: phobos.barrier
// WAITS-NEXT: phobos.async_copy
// WAITS-NEXT: phobos.async_commit
// WAITS-NEXT: phobos.async_wait 0
// WAITS-NEXT: phobos.barrier
// WAITS-NEXT: phobos.dot
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#lf = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#lt = #phobos.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 2], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>
#shf = #phobos.shared<order = [1, 0], padding = 4>
#sht = #phobos.shared<order = [0, 1], padding = 4>

phobos.kernel @gemm(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %F: !phobos.tensor<?x?xf32>, %G: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %x = phobos.load %B[%c0, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
  %sx = phobos.local_alloc %x : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %q = arith.divsi %k, %c32 : i32
  %full = arith.muli %q, %c32 : i32
  %main = scf.for %kk = %c0 to %full step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %d = phobos.dot %sa, %sx, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  %rest = scf.for %kk = %full to %k step %c32 iter_args(%acc = %main) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %t = phobos.load %F[%m0, %kk] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32, #lt>
    %st = phobos.local_alloc %t : !phobos.tile<64x32xf32, #lt> -> !phobos.smem<64x32xf32, #sht>
    %g = phobos.load %G[%kk, %n0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x128xf32, #lf>
    %sg = phobos.local_alloc %g : !phobos.tile<32x128xf32, #lf> -> !phobos.smem<32x128xf32, #shf>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    %e = phobos.dot %st, %sg, %d kind(fma) : !phobos.smem<64x32xf32, #sht>, !phobos.smem<32x128xf32, #shf>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %e : !phobos.tile<64x128xf32, #mma>
  }
  phobos.store %rest, %C[%m0, %n0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}
