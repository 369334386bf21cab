// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-choose-occupancy))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-choose-occupancy{max-shared-bytes=100000}))' --split-input-file | FileCheck %s --check-prefix=SMALL

// A 128x128 f32 accumulator over 256 threads is 64 registers per thread,
// half of the 128 a thread may use at two CTAs per SM: min_blocks = 2,
// if two CTAs' 56 KiB of shared memory fit.
// CHECK-LABEL: phobos.kernel @gemm
// CHECK-SAME: min_blocks = 2 : i32
// SMALL-LABEL: phobos.kernel @gemm
// SMALL-NOT: min_blocks = 2
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>
phobos.kernel @gemm(%C: !phobos.tensor<?x?xf32>, %k: i32)
    attributes {max_threads = 256 : i32, phobos.shared_bytes = 58000 : i64} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #mma>
  %as = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<1x128x32xf16, #sh>
  %a = phobos.buffer_slot %as[%c0] lag 0 : !phobos.smem<1x128x32xf16, #sh> -> !phobos.smem<128x32xf16, #sh>
  %bs = phobos.local_buffer {offset = 10240 : i64} : !phobos.smem<1x32x128xf16, #sh>
  %b = phobos.buffer_slot %bs[%c0] lag 0 : !phobos.smem<1x32x128xf16, #sh> -> !phobos.smem<32x128xf16, #sh>
  %r = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #mma>) : i32 {
    %d = phobos.dot %a, %b, %acc kind(mma_sync) : !phobos.smem<128x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<128x128xf32, #mma> -> !phobos.tile<128x128xf32, #mma>
    scf.yield %d : !phobos.tile<128x128xf32, #mma>
  }
  phobos.store %r, %C[%c0, %c0] : !phobos.tile<128x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// 128x256 is 128 accumulator registers per thread: one CTA per SM stays.
// A kernel that gives minBlocks keeps it; one without mma dots is left
// alone.
// CHECK-LABEL: phobos.kernel @big
// CHECK-NOT: min_blocks
// CHECK-LABEL: phobos.kernel @given
// CHECK-SAME: min_blocks = 1 : i32
// CHECK-LABEL: phobos.kernel @fma
// CHECK-NOT: min_blocks
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#acc = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 2], order = [1, 0]>
#sh = #phobos.shared<order = [1, 0], padding = 8>
#shf = #phobos.shared<order = [1, 0], padding = 4>
phobos.kernel @big(%C: !phobos.tensor<?x?xf32>)
    attributes {max_threads = 256 : i32, phobos.shared_bytes = 20000 : i64} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x256xf32, #mma>
  %as = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<1x128x32xf16, #sh>
  %a = phobos.buffer_slot %as[%c0] lag 0 : !phobos.smem<1x128x32xf16, #sh> -> !phobos.smem<128x32xf16, #sh>
  %bs = phobos.local_buffer {offset = 10240 : i64} : !phobos.smem<1x32x256xf16, #sh>
  %b = phobos.buffer_slot %bs[%c0] lag 0 : !phobos.smem<1x32x256xf16, #sh> -> !phobos.smem<32x256xf16, #sh>
  %d = phobos.dot %a, %b, %init kind(mma_sync) : !phobos.smem<128x32xf16, #sh>, !phobos.smem<32x256xf16, #sh>, !phobos.tile<128x256xf32, #mma> -> !phobos.tile<128x256xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<128x256xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}
phobos.kernel @given(%C: !phobos.tensor<?x?xf32>)
    attributes {max_threads = 256 : i32, min_blocks = 1 : i32, phobos.shared_bytes = 20000 : i64} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x64xf32, #mma>
  %as = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<1x64x32xf16, #sh>
  %a = phobos.buffer_slot %as[%c0] lag 0 : !phobos.smem<1x64x32xf16, #sh> -> !phobos.smem<64x32xf16, #sh>
  %bs = phobos.local_buffer {offset = 10240 : i64} : !phobos.smem<1x32x64xf16, #sh>
  %b = phobos.buffer_slot %bs[%c0] lag 0 : !phobos.smem<1x32x64xf16, #sh> -> !phobos.smem<32x64xf16, #sh>
  %d = phobos.dot %a, %b, %init kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x64xf16, #sh>, !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x64xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x64xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}
phobos.kernel @fma(%C: !phobos.tensor<?x?xf32>)
    attributes {max_threads = 256 : i32, phobos.shared_bytes = 20000 : i64} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x64xf32, #acc>
  %as = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<1x64x16xf32, #shf>
  %a = phobos.buffer_slot %as[%c0] lag 0 : !phobos.smem<1x64x16xf32, #shf> -> !phobos.smem<64x16xf32, #shf>
  %bs = phobos.local_buffer {offset = 10240 : i64} : !phobos.smem<1x16x64xf32, #shf>
  %b = phobos.buffer_slot %bs[%c0] lag 0 : !phobos.smem<1x16x64xf32, #shf> -> !phobos.smem<16x64xf32, #shf>
  %d = phobos.dot %a, %b, %init kind(fma) : !phobos.smem<64x16xf32, #shf>, !phobos.smem<16x64xf32, #shf>, !phobos.tile<64x64xf32, #acc> -> !phobos.tile<64x64xf32, #acc>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x64xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}
