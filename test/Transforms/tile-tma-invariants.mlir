// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-tma-invariants))' --split-input-file | FileCheck %s

// Q K^T over the rows of K (tile-pipeline's output for sm_90a): Q, loaded
// once before the TMA pipeline, is copied by TMA into a one-slot buffer on
// an mbarrier of its own, before the pipeline's prologue copies; the
// threads wait on it (phase 0) right before the loop, whose dot reads the
// slot.

// CHECK-LABEL: phobos.kernel @qk
// CHECK-NOT: phobos.load %q
// CHECK: %[[BAR:.*]] = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<1xi64
// CHECK: %[[BUF:.*]] = phobos.local_buffer : !phobos.smem<1x64x64xf16
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[Q:.*]] = phobos.buffer_slot %[[BUF]][%[[ZERO]]] lag 0
// CHECK: phobos.tma_copy %q[%{{.*}}, %c0_i32] into %[[Q]] arrive %[[BAR]][%[[ZERO]]] :
// CHECK-NOT: phobos.local_alloc
// CHECK: phobos.tma_copy %k
// CHECK: phobos.tma_copy %k
// CHECK: phobos.mbarrier_wait %[[BAR]][%[[ZERO]]], %[[ZERO]]
// CHECK-NEXT: scf.for
// CHECK: phobos.dot %[[Q]], %{{.*}}, %{{.*}} transpose_b kind(wgmma)

phobos.kernel @qk(%q: !phobos.tensor<?x64xf16> {phobos.dims = ["M", "64"], phobos.name = "q"}, %k: !phobos.tensor<?x64xf16> {phobos.dims = ["N", "64"], phobos.name = "k"}, %o: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "64"], phobos.name = "o"}) attributes {max_threads = 128 : i32, pipeline, tensorcore = "f16"} {
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = phobos.block_id x
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = phobos.load %q[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
  %3 = phobos.local_alloc %2 : !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %4 = phobos.fill %cst : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  %5 = phobos.dim %k[0] : !phobos.tensor<?x64xf16>
  %6 = arith.divsi %5, %c64_i32 : i32
  %7 = arith.muli %6, %c64_i32 : i32
  %8 = phobos.local_buffer : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %9 = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c0_i32_0 = arith.constant 0 : i32
  %10 = arith.muli %c64_i32, %c0_i32_0 : i32
  %11 = arith.addi %c0_i32, %10 : i32
  %12 = arith.cmpi slt, %11, %5 : i32
  %c0_i32_1 = arith.constant 0 : i32
  %13 = phobos.buffer_slot %8[%c0_i32_1] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  phobos.tma_copy %k[%11, %c0_i32] into %13 arrive %9[%c0_i32_1] if %12 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c1_i32 = arith.constant 1 : i32
  %14 = arith.muli %c64_i32, %c1_i32 : i32
  %15 = arith.addi %c0_i32, %14 : i32
  %16 = arith.cmpi slt, %15, %5 : i32
  %c1_i32_2 = arith.constant 1 : i32
  %17 = phobos.buffer_slot %8[%c1_i32_2] lag 1 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  phobos.tma_copy %k[%15, %c0_i32] into %17 arrive %9[%c1_i32_2] if %16 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c2_i32 = arith.constant 2 : i32
  %18 = arith.muli %c64_i32, %c2_i32 : i32
  %19 = arith.addi %c0_i32, %18 : i32
  %20 = scf.for %arg0 = %c0_i32 to %5 step %c64_i32 iter_args(%arg1 = %4) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>)  : i32 {
    %22 = arith.subi %arg0, %c0_i32 : i32
    %23 = arith.divsi %22, %c64_i32 : i32
    %c4_i32 = arith.constant 4 : i32
    %24 = arith.remsi %23, %c4_i32 : i32
    %c2_i32_3 = arith.constant 2 : i32
    %25 = arith.addi %23, %c2_i32_3 : i32
    %c4_i32_4 = arith.constant 4 : i32
    %26 = arith.remsi %25, %c4_i32_4 : i32
    %c2_i32_5 = arith.constant 2 : i32
    %27 = arith.muli %c64_i32, %c2_i32_5 : i32
    %28 = arith.addi %arg0, %27 : i32
    %29 = arith.cmpi slt, %28, %5 : i32
    %30 = phobos.buffer_slot %8[%26] lag 2 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    phobos.tma_copy %k[%28, %c0_i32] into %30 arrive %9[%26] if %29 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %c4_i32_6 = arith.constant 4 : i32
    %31 = arith.divsi %23, %c4_i32_6 : i32
    %c2_i32_7 = arith.constant 2 : i32
    %32 = arith.remsi %31, %c2_i32_7 : i32
    phobos.mbarrier_wait %9[%24], %32 : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %33 = phobos.buffer_slot %8[%24] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    %34 = phobos.dot %3, %33, %arg1 transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    scf.yield %34 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  } {phobos.pipeline_stages = 4 : i64}
  %21 = phobos.wgmma_wait %20 {pending = 0 : i32} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  phobos.store %21, %o[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tensor<?x64xf32>
  phobos.return
}

// -----

// Read again after the loop: left as it is.

// CHECK-LABEL: phobos.kernel @qk_read_after_loop
// CHECK: phobos.load %q
// CHECK: phobos.local_alloc
// CHECK-NOT: !phobos.smem<1xi64

phobos.kernel @qk_read_after_loop(%q: !phobos.tensor<?x64xf16> {phobos.dims = ["M", "64"], phobos.name = "q"}, %k: !phobos.tensor<?x64xf16> {phobos.dims = ["N", "64"], phobos.name = "k"}, %o: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "64"], phobos.name = "o"}) attributes {max_threads = 128 : i32, pipeline, tensorcore = "f16"} {
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = phobos.block_id x
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = phobos.load %q[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
  %3 = phobos.local_alloc %2 : !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %4 = phobos.fill %cst : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  %5 = phobos.dim %k[0] : !phobos.tensor<?x64xf16>
  %6 = arith.divsi %5, %c64_i32 : i32
  %7 = arith.muli %6, %c64_i32 : i32
  %8 = phobos.local_buffer : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %9 = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c0_i32_0 = arith.constant 0 : i32
  %10 = arith.muli %c64_i32, %c0_i32_0 : i32
  %11 = arith.addi %c0_i32, %10 : i32
  %12 = arith.cmpi slt, %11, %5 : i32
  %c0_i32_1 = arith.constant 0 : i32
  %13 = phobos.buffer_slot %8[%c0_i32_1] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  phobos.tma_copy %k[%11, %c0_i32] into %13 arrive %9[%c0_i32_1] if %12 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c1_i32 = arith.constant 1 : i32
  %14 = arith.muli %c64_i32, %c1_i32 : i32
  %15 = arith.addi %c0_i32, %14 : i32
  %16 = arith.cmpi slt, %15, %5 : i32
  %c1_i32_2 = arith.constant 1 : i32
  %17 = phobos.buffer_slot %8[%c1_i32_2] lag 1 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  phobos.tma_copy %k[%15, %c0_i32] into %17 arrive %9[%c1_i32_2] if %16 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c2_i32 = arith.constant 2 : i32
  %18 = arith.muli %c64_i32, %c2_i32 : i32
  %19 = arith.addi %c0_i32, %18 : i32
  %20 = scf.for %arg0 = %c0_i32 to %5 step %c64_i32 iter_args(%arg1 = %4) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>)  : i32 {
    %22 = arith.subi %arg0, %c0_i32 : i32
    %23 = arith.divsi %22, %c64_i32 : i32
    %c4_i32 = arith.constant 4 : i32
    %24 = arith.remsi %23, %c4_i32 : i32
    %c2_i32_3 = arith.constant 2 : i32
    %25 = arith.addi %23, %c2_i32_3 : i32
    %c4_i32_4 = arith.constant 4 : i32
    %26 = arith.remsi %25, %c4_i32_4 : i32
    %c2_i32_5 = arith.constant 2 : i32
    %27 = arith.muli %c64_i32, %c2_i32_5 : i32
    %28 = arith.addi %arg0, %27 : i32
    %29 = arith.cmpi slt, %28, %5 : i32
    %30 = phobos.buffer_slot %8[%26] lag 2 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    phobos.tma_copy %k[%28, %c0_i32] into %30 arrive %9[%26] if %29 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %c4_i32_6 = arith.constant 4 : i32
    %31 = arith.divsi %23, %c4_i32_6 : i32
    %c2_i32_7 = arith.constant 2 : i32
    %32 = arith.remsi %31, %c2_i32_7 : i32
    phobos.mbarrier_wait %9[%24], %32 : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %33 = phobos.buffer_slot %8[%24] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    %34 = phobos.dot %3, %33, %arg1 transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    scf.yield %34 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  } {phobos.pipeline_stages = 4 : i64}
  %21 = phobos.wgmma_wait %20 {pending = 0 : i32} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  %35 = phobos.dot %3, %13, %21 transpose_b kind(wgmma) : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  phobos.store %35, %o[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tensor<?x64xf32>
  phobos.return
}

// -----

// The kernel writes Q (after the loop): the copy, which would read Q
// asynchronously, is not made.

// CHECK-LABEL: phobos.kernel @qk_writes_q
// CHECK: phobos.load %q
// CHECK: phobos.local_alloc
// CHECK-NOT: !phobos.smem<1xi64
phobos.kernel @qk_writes_q(%q: !phobos.tensor<?x64xf16> {phobos.dims = ["M", "64"], phobos.name = "q"}, %k: !phobos.tensor<?x64xf16> {phobos.dims = ["N", "64"], phobos.name = "k"}, %o: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "64"], phobos.name = "o"}) attributes {max_threads = 128 : i32, pipeline, tensorcore = "f16"} {
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = phobos.block_id x
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = phobos.load %q[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
  %3 = phobos.local_alloc %2 : !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %4 = phobos.fill %cst : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  %5 = phobos.dim %k[0] : !phobos.tensor<?x64xf16>
  %6 = arith.divsi %5, %c64_i32 : i32
  %7 = arith.muli %6, %c64_i32 : i32
  %8 = phobos.local_buffer : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %9 = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c0_i32_0 = arith.constant 0 : i32
  %10 = arith.muli %c64_i32, %c0_i32_0 : i32
  %11 = arith.addi %c0_i32, %10 : i32
  %12 = arith.cmpi slt, %11, %5 : i32
  %c0_i32_1 = arith.constant 0 : i32
  %13 = phobos.buffer_slot %8[%c0_i32_1] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  phobos.tma_copy %k[%11, %c0_i32] into %13 arrive %9[%c0_i32_1] if %12 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c1_i32 = arith.constant 1 : i32
  %14 = arith.muli %c64_i32, %c1_i32 : i32
  %15 = arith.addi %c0_i32, %14 : i32
  %16 = arith.cmpi slt, %15, %5 : i32
  %c1_i32_2 = arith.constant 1 : i32
  %17 = phobos.buffer_slot %8[%c1_i32_2] lag 1 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  phobos.tma_copy %k[%15, %c0_i32] into %17 arrive %9[%c1_i32_2] if %16 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
  %c2_i32 = arith.constant 2 : i32
  %18 = arith.muli %c64_i32, %c2_i32 : i32
  %19 = arith.addi %c0_i32, %18 : i32
  %20 = scf.for %arg0 = %c0_i32 to %5 step %c64_i32 iter_args(%arg1 = %4) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>)  : i32 {
    %22 = arith.subi %arg0, %c0_i32 : i32
    %23 = arith.divsi %22, %c64_i32 : i32
    %c4_i32 = arith.constant 4 : i32
    %24 = arith.remsi %23, %c4_i32 : i32
    %c2_i32_3 = arith.constant 2 : i32
    %25 = arith.addi %23, %c2_i32_3 : i32
    %c4_i32_4 = arith.constant 4 : i32
    %26 = arith.remsi %25, %c4_i32_4 : i32
    %c2_i32_5 = arith.constant 2 : i32
    %27 = arith.muli %c64_i32, %c2_i32_5 : i32
    %28 = arith.addi %arg0, %27 : i32
    %29 = arith.cmpi slt, %28, %5 : i32
    %30 = phobos.buffer_slot %8[%26] lag 2 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    phobos.tma_copy %k[%28, %c0_i32] into %30 arrive %9[%26] if %29 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %c4_i32_6 = arith.constant 4 : i32
    %31 = arith.divsi %23, %c4_i32_6 : i32
    %c2_i32_7 = arith.constant 2 : i32
    %32 = arith.remsi %31, %c2_i32_7 : i32
    phobos.mbarrier_wait %9[%24], %32 : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %33 = phobos.buffer_slot %8[%24] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    %34 = phobos.dot %3, %33, %arg1 transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    scf.yield %34 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  } {phobos.pipeline_stages = 4 : i64}
  %21 = phobos.wgmma_wait %20 {pending = 0 : i32} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  %35 = phobos.cast %21 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>> to !phobos.tile<64x64xf16, #phobos.mma<warpsPerCTA = [4, 1]>>
  phobos.store %35, %q[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tile<64x64xf16, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tensor<?x64xf16>
  phobos.store %21, %o[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tensor<?x64xf32>
  phobos.return
}

// -----

// A loop tile-unswitch-loops split on a flag: a pipeline in each branch of
// the `scf.if`, and a ragged remainder loop after each. One slot and one
// mbarrier for Q; each branch copies into the slot at its start (before its
// own prologue) and waits before its pipeline; every dot, the remainders'
// too, reads the slot.

// CHECK-LABEL: phobos.kernel @qk_flag
// CHECK: %[[BAR:.*]] = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<1xi64
// CHECK: %[[BUF:.*]] = phobos.local_buffer : !phobos.smem<1x64x64xf16
// CHECK-NOT: phobos.local_alloc
// CHECK: scf.if %flag
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[Q1:.*]] = phobos.buffer_slot %[[BUF]][%[[Z1]]] lag 0
// CHECK-NEXT: phobos.tma_copy %q[{{.*}}] into %[[Q1]] arrive %[[BAR]][%[[Z1]]] :
// CHECK: phobos.tma_copy %k
// CHECK: phobos.mbarrier_wait %[[BAR]][%[[Z1]]], %[[Z1]]
// CHECK-NEXT: scf.for
// CHECK: phobos.dot %[[Q1]], %{{.*}} transpose_b kind(wgmma)
// CHECK: } {phobos.pipeline_stages
// CHECK: scf.for
// CHECK: phobos.dot %[[Q1]], %{{.*}} transpose_b kind(wgmma)
// CHECK: } else {
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[Q2:.*]] = phobos.buffer_slot %[[BUF]][%[[Z2]]] lag 0
// CHECK-NEXT: phobos.tma_copy %q[{{.*}}] into %[[Q2]] arrive %[[BAR]][%[[Z2]]] :
// CHECK: phobos.mbarrier_wait %[[BAR]][%[[Z2]]], %[[Z2]]
// CHECK-NEXT: scf.for
// CHECK: phobos.dot %[[Q2]], %{{.*}}, %{{.*}} transpose_b kind(wgmma)
// CHECK: } {phobos.pipeline_stages
// CHECK: scf.for
// CHECK: phobos.dot %[[Q2]], %{{.*}} transpose_b kind(wgmma)

phobos.kernel @qk_flag(%q: !phobos.tensor<?x64xf16> {phobos.dims = ["M", "64"], phobos.name = "q"}, %k: !phobos.tensor<?x64xf16> {phobos.dims = ["N", "64"], phobos.name = "k"}, %o: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "64"], phobos.name = "o"}, %flag: i1 {phobos.name = "flag"}) attributes {max_threads = 128 : i32, pipeline, tensorcore = "f16"} {
  %c-62_i32 = arith.constant -62 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = phobos.block_id x
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = phobos.arange : !phobos.tile<64xi32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
  %3 = phobos.add %1, %2 : i32, !phobos.tile<64xi32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
  %4 = phobos.reshape %3 : !phobos.tile<64xi32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> !phobos.tile<64x1xi32, #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
  %5 = phobos.convert_layout %4 : !phobos.tile<64x1xi32, #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>> -> !phobos.tile<64x1xi32, #phobos.mma<warpsPerCTA = [4, 1]>>
  %6 = phobos.load %q[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
  %7 = phobos.local_alloc %6 : !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %8 = phobos.fill %cst : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  %9 = phobos.dim %k[0] : !phobos.tensor<?x64xf16>
  %10 = scf.if %flag -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>) {
    %11 = arith.divsi %9, %c64_i32 : i32
    %12 = arith.muli %11, %c64_i32 : i32
    %13 = arith.addi %1, %c-62_i32 : i32
    %14 = phobos.local_buffer : !phobos.smem<3x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    %15 = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>
    %c0_i32_0 = arith.constant 0 : i32
    %16 = arith.muli %c64_i32, %c0_i32_0 : i32
    %17 = arith.addi %c0_i32, %16 : i32
    %18 = arith.cmpi slt, %17, %12 : i32
    %c0_i32_1 = arith.constant 0 : i32
    %19 = phobos.buffer_slot %14[%c0_i32_1] lag 0 : !phobos.smem<3x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    phobos.tma_copy %k[%17, %c0_i32] into %19 arrive %15[%c0_i32_1] if %18 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>
    %c1_i32 = arith.constant 1 : i32
    %20 = arith.muli %c64_i32, %c1_i32 : i32
    %21 = arith.addi %c0_i32, %20 : i32
    %22 = arith.cmpi slt, %21, %12 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %23 = phobos.buffer_slot %14[%c1_i32_2] lag 1 : !phobos.smem<3x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    phobos.tma_copy %k[%21, %c0_i32] into %23 arrive %15[%c1_i32_2] if %22 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>
    %c2_i32 = arith.constant 2 : i32
    %24 = arith.muli %c64_i32, %c2_i32 : i32
    %25 = arith.addi %c0_i32, %24 : i32
    %26 = scf.for %arg0 = %c0_i32 to %12 step %c64_i32 iter_args(%arg1 = %8) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>)  : i32 {
      %28 = arith.subi %arg0, %c0_i32 : i32
      %29 = arith.divsi %28, %c64_i32 : i32
      %c3_i32 = arith.constant 3 : i32
      %30 = arith.remsi %29, %c3_i32 : i32
      %c2_i32_3 = arith.constant 2 : i32
      %31 = arith.addi %29, %c2_i32_3 : i32
      %c3_i32_4 = arith.constant 3 : i32
      %32 = arith.remsi %31, %c3_i32_4 : i32
      %c2_i32_5 = arith.constant 2 : i32
      %33 = arith.muli %c64_i32, %c2_i32_5 : i32
      %34 = arith.addi %arg0, %33 : i32
      %35 = arith.cmpi slt, %34, %12 : i32
      %36 = phobos.buffer_slot %14[%32] lag 2 : !phobos.smem<3x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
      phobos.tma_copy %k[%34, %c0_i32] into %36 arrive %15[%32] if %35 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>
      %c3_i32_6 = arith.constant 3 : i32
      %37 = arith.divsi %29, %c3_i32_6 : i32
      %c2_i32_7 = arith.constant 2 : i32
      %38 = arith.remsi %37, %c2_i32_7 : i32
      phobos.mbarrier_wait %15[%30], %38 : !phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>
      %39 = phobos.buffer_slot %14[%30] lag 0 : !phobos.smem<3x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
      %40 = phobos.dot %7, %39 transpose_b kind(wgmma) : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      %41 = arith.cmpi slt, %arg0, %13 : i32
      %42 = scf.if %41 -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>) {
        scf.yield %40 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      } else {
        %44 = phobos.arange : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>
        %45 = phobos.add %arg0, %44 : i32, !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>
        %46 = phobos.cmp le, %45, %5 : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>, !phobos.tile<64x1xi32, #phobos.mma<warpsPerCTA = [4, 1]>>
        %47 = phobos.select %46, %40, %cst : !phobos.tile<64x64xi1, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, f32
        scf.yield %47 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      }
      %43 = phobos.add %arg1, %42 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      scf.yield %43 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    } {phobos.pipeline_stages = 3 : i64}
    %27 = scf.for %arg0 = %12 to %9 step %c64_i32 iter_args(%arg1 = %26) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>)  : i32 {
      %28 = phobos.arange : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>
      %29 = phobos.add %arg0, %28 : i32, !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>
      %30 = phobos.cmp le, %29, %5 : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>, !phobos.tile<64x1xi32, #phobos.mma<warpsPerCTA = [4, 1]>>
      %31 = phobos.load %k[%arg0, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
      %32 = phobos.local_alloc %31 : !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
      %33 = phobos.dot %7, %32 transpose_b kind(wgmma) : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      %34 = phobos.select %30, %33, %cst : !phobos.tile<64x64xi1, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, f32
      %35 = phobos.add %arg1, %34 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      scf.yield %35 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    } {phobos.ragged_remainder}
    scf.yield %27 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  } else {
    %11 = arith.divsi %9, %c64_i32 : i32
    %12 = arith.muli %11, %c64_i32 : i32
    %13 = phobos.local_buffer : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    %14 = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %c0_i32_0 = arith.constant 0 : i32
    %15 = arith.muli %c64_i32, %c0_i32_0 : i32
    %16 = arith.addi %c0_i32, %15 : i32
    %17 = arith.cmpi slt, %16, %12 : i32
    %c0_i32_1 = arith.constant 0 : i32
    %18 = phobos.buffer_slot %13[%c0_i32_1] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    phobos.tma_copy %k[%16, %c0_i32] into %18 arrive %14[%c0_i32_1] if %17 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %c1_i32 = arith.constant 1 : i32
    %19 = arith.muli %c64_i32, %c1_i32 : i32
    %20 = arith.addi %c0_i32, %19 : i32
    %21 = arith.cmpi slt, %20, %12 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %22 = phobos.buffer_slot %13[%c1_i32_2] lag 1 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
    phobos.tma_copy %k[%20, %c0_i32] into %22 arrive %14[%c1_i32_2] if %21 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
    %c2_i32 = arith.constant 2 : i32
    %23 = arith.muli %c64_i32, %c2_i32 : i32
    %24 = arith.addi %c0_i32, %23 : i32
    %25 = scf.for %arg0 = %c0_i32 to %12 step %c64_i32 iter_args(%arg1 = %8) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>)  : i32 {
      %28 = arith.subi %arg0, %c0_i32 : i32
      %29 = arith.divsi %28, %c64_i32 : i32
      %c4_i32 = arith.constant 4 : i32
      %30 = arith.remsi %29, %c4_i32 : i32
      %c2_i32_3 = arith.constant 2 : i32
      %31 = arith.addi %29, %c2_i32_3 : i32
      %c4_i32_4 = arith.constant 4 : i32
      %32 = arith.remsi %31, %c4_i32_4 : i32
      %c2_i32_5 = arith.constant 2 : i32
      %33 = arith.muli %c64_i32, %c2_i32_5 : i32
      %34 = arith.addi %arg0, %33 : i32
      %35 = arith.cmpi slt, %34, %12 : i32
      %36 = phobos.buffer_slot %13[%32] lag 2 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
      phobos.tma_copy %k[%34, %c0_i32] into %36 arrive %14[%32] if %35 : !phobos.tensor<?x64xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
      %c4_i32_6 = arith.constant 4 : i32
      %37 = arith.divsi %29, %c4_i32_6 : i32
      %c2_i32_7 = arith.constant 2 : i32
      %38 = arith.remsi %37, %c2_i32_7 : i32
      phobos.mbarrier_wait %14[%30], %38 : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
      %39 = phobos.buffer_slot %13[%30] lag 0 : !phobos.smem<4x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
      %40 = phobos.dot %7, %39, %arg1 transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      scf.yield %40 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    } {phobos.pipeline_stages = 4 : i64}
    %26 = phobos.wgmma_wait %25 {pending = 0 : i32} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    %27 = scf.for %arg0 = %12 to %9 step %c64_i32 iter_args(%arg1 = %26) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>)  : i32 {
      %28 = phobos.arange : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>
      %29 = phobos.add %arg0, %28 : i32, !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>
      %30 = phobos.cmp lt, %29, %9 : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>, i32
      %31 = phobos.load %k[%arg0, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
      %32 = phobos.local_alloc %31 : !phobos.tile<64x64xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
      %33 = phobos.dot %7, %32 transpose_b kind(wgmma) : !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      %34 = phobos.select %30, %33, %cst : !phobos.tile<64xi1, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, f32
      %35 = phobos.add %arg1, %34 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
      scf.yield %35 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
    }
    scf.yield %27 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
  }
  phobos.store %10, %o[%1, %c0_i32] {in_bounds = array<i1: false, true>} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.tensor<?x64xf32>
  phobos.return
}
