// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-swizzle-shared))' | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-swizzle-shared{report=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Each staged buffer gets the layout with the fewest bank conflicts on how
// it is written and read, then the least memory.
//
// mma.sync: A [64, 32] f16 has 64-byte rows (4 units of 16 bytes): two rows
// share a 128-byte line, so rows pair up in a phase: swizzle [8, 2, 4].
// B [32, 128] f16 has 256-byte rows: swizzle [8, 1, 8]. Both are free of
// conflicts for the 16-byte stores and the ldmatrix rows, which the plain
// layout is not, and smaller than the padded one (the padding of A still
// costs 4 extra wavefronts: its 16-byte stores of 8 lanes span 80 bytes a
// row pair).
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>

// CHECK-LABEL: phobos.kernel @mma
// CHECK: %[[SA:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<64x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4]>>
// CHECK: %[[SB:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<32x128xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8]>>
// CHECK: phobos.dot %[[SA]], %[[SB]], %{{.*}} kind(mma_sync) : !phobos.smem<64x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4]>>, !phobos.smem<32x128xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8]>>
// REPORT: tile-swizzle-shared.mlir:[[@LINE+10]]:11: remark: shared 64x32xf16: swizzle [8, 2, 4] (plain: 96 excess of 132 wavefronts, 4096 B, swizzle [8, 2, 4]: 0 excess of 36 wavefronts, 4096 B, padding 8: 4 excess of 40 wavefronts, 5120 B; accesses: 1 store 32 ldmatrix)
// REPORT: tile-swizzle-shared.mlir:[[@LINE+11]]:11: remark: shared 32x128xf16: swizzle [8, 1, 8] (plain: 448 excess of 520 wavefronts, 8192 B, swizzle [8, 1, 8]: 0 excess of 72 wavefronts, 8192 B, padding 8: 0 excess of 72 wavefronts, 8704 B; accesses: 2 store 64 ldmatrix)
phobos.kernel @mma(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32, %k: i32)
    attributes {max_threads = 256 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %r = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  phobos.store %r, %C[%m0, %n0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// FMA (exact f32): A [64, 16] is stored transposed (M contiguous) from
// registers that run along K, so its stores are scalar; with the swizzle
// they conflict no more than with the padding, which it saves. B's rows and
// the k-slice reads conflict in no layout: the plain layout ties with the
// swizzle on memory and wins (no XOR in the addresses).
#acc = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#fa = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#fb = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shA = #phobos.shared<order = [0, 1], padding = 4>
#shB = #phobos.shared<order = [1, 0], padding = 4>

// A's stores transpose its tile, but an FMA operand of a loop that is not
// pipelined keeps its load's layout (its blocks' loads would wait in the
// step itself: measured slower for the SGEMM).
// CHECK-LABEL: phobos.kernel @fma
// CHECK: phobos.load {{.*}} -> !phobos.tile<64x16xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<64x16xf32, #phobos.shared<order = [0, 1], padding = 0, swizzle = [4, 1, 8]>>
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<16x64xf32, #phobos.shared<order = [1, 0], padding = 0>>
// REPORT: remark: shared 64x16xf32: swizzle [4, 1, 8] (plain: 24 excess of 40 wavefronts, 4096 B, swizzle [4, 1, 8]: 8 excess of 24 wavefronts, 4096 B, padding 4: 8 excess of 24 wavefronts, 4352 B; accesses: 8 store 2 fma-load)
// REPORT: remark: shared 16x64xf32: plain (plain: 0 excess of 16 wavefronts, 4096 B, swizzle [4, 1, 8]: 0 excess of 16 wavefronts, 4096 B, padding 4: 0 excess of 16 wavefronts, 4352 B; accesses: 2 store 2 fma-load)
phobos.kernel @fma(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32, #acc>
  %r = scf.for %kk = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32, #acc>) : i32 {
    %a = phobos.load %A[%m, %kk] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32, #fa>
    %s1 = phobos.local_alloc %a : !phobos.tile<64x16xf32, #fa> -> !phobos.smem<64x16xf32, #shA>
    %b = phobos.load %B[%kk, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32, #fb>
    %s2 = phobos.local_alloc %b : !phobos.tile<16x64xf32, #fb> -> !phobos.smem<16x64xf32, #shB>
    %d = phobos.dot %s1, %s2, %acc kind(fma) : !phobos.smem<64x16xf32, #shA>, !phobos.smem<16x64xf32, #shB>, !phobos.tile<64x64xf32, #acc> -> !phobos.tile<64x64xf32, #acc>
    scf.yield %d : !phobos.tile<64x64xf32, #acc>
  }
  phobos.store %r, %C[%m, %m] : !phobos.tile<64x64xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}

// The same loop pipelined (@pipeline, or @pipeline(N) with N >= 2):
// tile-pipeline will stage A through registers, so A's load takes blocks
// (8 elements a thread: 2 rows of 16 bytes along K, stored as 8-byte
// vectors along M); B, whose stores
// do not transpose, keeps its layout. @pipeline(1) changes nothing.
// CHECK-LABEL: phobos.kernel @fma_pipelined
// CHECK: phobos.load {{.*}} -> !phobos.tile<64x16xf32, #phobos.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]>>
// CHECK: phobos.load {{.*}} -> !phobos.tile<16x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-LABEL: phobos.kernel @fma_one_stage
// CHECK: phobos.load {{.*}} -> !phobos.tile<64x16xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
phobos.kernel @fma_pipelined(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32, pipeline} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32, #acc>
  %r = scf.for %kk = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32, #acc>) : i32 {
    %a = phobos.load %A[%m, %kk] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32, #fa>
    %s1 = phobos.local_alloc %a : !phobos.tile<64x16xf32, #fa> -> !phobos.smem<64x16xf32, #shA>
    %b = phobos.load %B[%kk, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32, #fb>
    %s2 = phobos.local_alloc %b : !phobos.tile<16x64xf32, #fb> -> !phobos.smem<16x64xf32, #shB>
    %d = phobos.dot %s1, %s2, %acc kind(fma) : !phobos.smem<64x16xf32, #shA>, !phobos.smem<16x64xf32, #shB>, !phobos.tile<64x64xf32, #acc> -> !phobos.tile<64x64xf32, #acc>
    scf.yield %d : !phobos.tile<64x64xf32, #acc>
  }
  phobos.store %r, %C[%m, %m] : !phobos.tile<64x64xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}

phobos.kernel @fma_one_stage(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32, pipeline, pipeline_stages = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32, #acc>
  %r = scf.for %kk = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32, #acc>) : i32 {
    %a = phobos.load %A[%m, %kk] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32, #fa>
    %s1 = phobos.local_alloc %a : !phobos.tile<64x16xf32, #fa> -> !phobos.smem<64x16xf32, #shA>
    %b = phobos.load %B[%kk, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32, #fb>
    %s2 = phobos.local_alloc %b : !phobos.tile<16x64xf32, #fb> -> !phobos.smem<16x64xf32, #shB>
    %d = phobos.dot %s1, %s2, %acc kind(fma) : !phobos.smem<64x16xf32, #shA>, !phobos.smem<16x64xf32, #shB>, !phobos.tile<64x64xf32, #acc> -> !phobos.tile<64x64xf32, #acc>
    scf.yield %d : !phobos.tile<64x64xf32, #acc>
  }
  phobos.store %r, %C[%m, %m] : !phobos.tile<64x64xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}

// wgmma's tf32 B [32, 128] is staged K-major in 128-byte atoms (fixed). From
// the default layout (4 elements a thread along N, lanes along N) its 4-byte
// stores fall into two banks a warp; each thread now holds a 4x4 block:
// 16-byte loads along N, 16-byte stores along K, 4 lanes along K and 8
// along N, which fill all 32 banks.
#wlb = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#wla = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#wacc = #phobos.mma<warpsPerCTA = [8, 1]>
#wsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 1, 8], atom = 32>
#wsb = #phobos.shared<order = [0, 1], padding = 0, swizzle = [4, 1, 8], atom = 32>

// CHECK-LABEL: phobos.kernel @tf32_b
// CHECK: phobos.load {{.*}} -> !phobos.tile<128x32xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>>
// CHECK: phobos.load {{.*}} -> !phobos.tile<32x128xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 4], order = [0, 1]>>
phobos.kernel @tf32_b(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32, %k: i32)
    attributes {max_threads = 256 : i32, tensorcore = "tf32"} {
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #wacc>
  %a = phobos.load %A[%m0, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<128x32xf32, #wla>
  %sa = phobos.local_alloc %a : !phobos.tile<128x32xf32, #wla> -> !phobos.smem<128x32xf32, #wsa>
  %b = phobos.load %B[%k, %n0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x128xf32, #wlb>
  %sb = phobos.local_alloc %b : !phobos.tile<32x128xf32, #wlb> -> !phobos.smem<32x128xf32, #wsb>
  %d = phobos.dot %sa, %sb, %init precision(tf32) kind(wgmma) : !phobos.smem<128x32xf32, #wsa>, !phobos.smem<32x128xf32, #wsb>, !phobos.tile<128x128xf32, #wacc> -> !phobos.tile<128x128xf32, #wacc>
  phobos.store %d, %C[%m0, %n0] : !phobos.tile<128x128xf32, #wacc>, !phobos.tensor<?x?xf32>
  phobos.return
}
