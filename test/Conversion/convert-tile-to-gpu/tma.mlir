// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline,tile-allocate-shared,tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{release-everywhere=true},tile-allocate-shared,tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s --check-prefix=RELEASED

// TMA copies of a pipelined GEMM loop. The kernel takes one tensor map per
// tensor and box after its other parameters (A: 3 values, B: 3, C: 3, m0,
// n0: positions 11 and 12), listed for phobos-mark-tensor-map-params and
// described for the launch contract (argument, box rows, box cols, swizzle
// bytes). Thread 0 initialises the 4 mbarriers (2 arrivals each) and fences
// them for the async proxy; the CTA waits at a barrier. Each copy is
// thread 0's: an arrive with the destination's bytes expected (128 x 32 and
// 32 x 128 f16: 8192), then one bulk tensor copy per atom column (A: one
// box of 32 columns; B: two of 64, the second at column + 64, 4096 bytes
// further). Each iteration's barrier (the slot it overwrites was read the
// iteration before) precedes its copies; its reads wait on the mbarrier.

// CHECK-LABEL: gpu.func @tma
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr) kernel
// CHECK-SAME: phobos.tensor_map_params = array<i32: 11, 12>
// CHECK-SAME: phobos.tensor_maps = [array<i64: 0, 128, 32, 64>, array<i64: 1, 32, 64, 128>]
// CHECK: scf.if
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier0
// Prologue: iteration 0's copies.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES:.*]] : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA:[^,]*]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB:[^,]*]], %{{.*}}, box
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]], %{{.*}}, box
// The steady state.
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA]]
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.wgmma.mma_async
// With the slots released by mbarriers (tile-pipeline release-everywhere),
// the loop has no barrier: after the dot (whose wait retires the previous
// iteration's group) each warp converges and its lane 0 arrives on the
// previous slot's "empty" mbarrier; before each refill, behind the dot,
// every thread waits for the release of the slot (a wait in thread 0's
// branch would make ptxas serialise the wgmma groups in flight).
// RELEASED: scf.for
// RELEASED-NOT: nvvm.barrier0
// RELEASED: nvvm.mbarrier.try_wait.parity
// RELEASED-NOT: nvvm.barrier0
// RELEASED: nvvm.wgmma.mma_async
// RELEASED: nvvm.wgmma.wait.group.sync.aligned 1
// RELEASED: nvvm.bar.warp.sync
// RELEASED-NEXT: arith.constant 0
// RELEASED-NEXT: arith.cmpi eq
// RELEASED-NEXT: arith.andi
// RELEASED-NEXT: scf.if
// RELEASED-NEXT: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// RELEASED-NOT: nvvm.barrier0
// RELEASED: nvvm.mbarrier.try_wait.parity %[[EMPTY:[0-9]+]], %[[PARITY:[0-9]+]]
// RELEASED-NOT: scf.if
// RELEASED: scf.if
// RELEASED: nvvm.mbarrier.arrive.expect_tx
// RELEASED: nvvm.mbarrier.try_wait.parity %{{[0-9]+}}, %[[PARITY]]
// RELEASED: scf.if
// RELEASED: nvvm.mbarrier.arrive.expect_tx
// RELEASED-NOT: nvvm.barrier0
// RELEASED: scf.yield
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#wg = #phobos.mma<warpsPerCTA = [8, 1]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#sb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @tma(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "K"]}, %B: !phobos.tensor<?x?xf16> {phobos.dims = ["K", "N"]}, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16", aligned = {K = 8 : i64, N = 8 : i64}} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #wg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %main = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #wg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #la> -> !phobos.smem<128x32xf16, #sa>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #sa>, !phobos.smem<32x128xf16, #sb>, !phobos.tile<128x128xf32, #wg> -> !phobos.tile<128x128xf32, #wg>
    scf.yield %d : !phobos.tile<128x128xf32, #wg>
  }
  phobos.store %main, %C[%m0, %n0] : !phobos.tile<128x128xf32, #wg>, !phobos.tensor<?x?xf32>
  phobos.return
}
