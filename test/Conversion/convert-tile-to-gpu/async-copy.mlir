// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s

// Asynchronous copies (tile-pipeline's): a slot of a local_buffer is the
// buffer's base plus slot * (the slot's bytes, rounded up to 16). Where a
// thread's registers are 16 contiguous bytes in the tensor and the buffer,
// each run is one 16-byte cp.async.cg; its source size is 16 or 0, so a
// masked run (outside the tensor, or the whole copy disabled) writes zeros
// without a branch. Whether the tensor's rows keep the runs 16-byte
// aligned is known only at run time: a uniform branch takes per-element
// loads and stores otherwise. Registers contiguous only in the buffer
// (a transposed f32 staging) copy 4 bytes each with cp.async.ca. Commit
// and wait are the group instructions.

// CHECK-LABEL: gpu.func @copies
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @phobos_smem : !llvm.ptr<3>
// The f16 buffer at 256; slot 1 is 16 rows x (32 + 8) x 2 bytes further.
// CHECK: llvm.getelementptr %[[SMEM]][256] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: arith.constant 1280 : i32
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT: } else {
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// CHECK: }
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-16: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca, %{{.*}}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.return
#l = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
#t = #phobos.blocked<sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]>
#sh = #phobos.shared<order = [1, 0], padding = 8>
#sht = #phobos.shared<order = [0, 1], padding = 4>

phobos.kernel @copies(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "K"]}, %F: !phobos.tensor<?x?xf32> {phobos.dims = ["K", "N"]}, %k: i32, %more: i1)
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 8192 : i64, phobos.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = phobos.local_buffer {offset = 256 : i64} : !phobos.smem<2x16x32xf16, #sh>
  %s1 = phobos.buffer_slot %buf[%c1] lag 1 : !phobos.smem<2x16x32xf16, #sh> -> !phobos.smem<16x32xf16, #sh>
  phobos.async_copy %A[%c0, %k] into %s1 if %more {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16>, !phobos.tile<16x32xf16, #l>, !phobos.smem<16x32xf16, #sh>
  phobos.async_commit
  %bt = phobos.local_buffer {offset = 4096 : i64} : !phobos.smem<2x32x32xf32, #sht>
  %t0 = phobos.buffer_slot %bt[%c0] lag 0 : !phobos.smem<2x32x32xf32, #sht> -> !phobos.smem<32x32xf32, #sht>
  phobos.async_copy %F[%k, %c0] into %t0 : !phobos.tensor<?x?xf32>, !phobos.tile<32x32xf32, #t>, !phobos.smem<32x32xf32, #sht>
  phobos.async_commit
  phobos.async_wait 1
  phobos.async_wait 0
  phobos.return
}
