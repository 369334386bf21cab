// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s

// A local_store (tile-pipeline's register staging) writes a thread's
// registers into a slot of a local_buffer as local_alloc writes its buffer:
// registers contiguous along the slot's fastest axis as one vector. Here a
// 4x4 block a thread of an f32 tile staged K-major (order [0, 1]): four
// 16-byte stores, each four rows of one column; slot 1 of the buffer at
// 1024 is 32 x 32 x 4 bytes further.
// CHECK-LABEL: gpu.func @store_slot
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @phobos_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr %[[SMEM]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: arith.constant 4096 : i32
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store {{.*}}!llvm.ptr<3>
// CHECK: gpu.return
#b = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [0, 1]>
#sk = #phobos.shared<order = [0, 1], padding = 0, swizzle = [4, 1, 8]>

phobos.kernel @store_slot(%B: !phobos.tensor<?x?xf32> {phobos.dims = ["K", "N"]}, %k: i32)
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 9216 : i64, phobos.shared_bytes = 9216 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = phobos.load %B[%k, %c0] {in_bounds = array<i1: true, true>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x32xf32, #b>
  %buf = phobos.local_buffer {offset = 1024 : i64} : !phobos.smem<2x32x32xf32, #sk>
  %s1 = phobos.buffer_slot %buf[%c1] lag 1 : !phobos.smem<2x32x32xf32, #sk> -> !phobos.smem<32x32xf32, #sk>
  phobos.local_store %t into %s1 : !phobos.tile<32x32xf32, #b>, !phobos.smem<32x32xf32, #sk>
  phobos.return
}
