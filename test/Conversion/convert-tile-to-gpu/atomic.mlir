// RUN: phobos-opt %s --convert-tile-to-gpu --split-input-file | FileCheck %s

// phobos.atomic_add: one relaxed atomicrmw per element a thread holds a
// canonical copy of, skipped outside the tensor; the scalar form is done by
// thread 0.

#l = #phobos.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// CHECK-LABEL: gpu.func @add_row
// CHECK-SAME: (%[[DW:[^:]*]]: !llvm.ptr<1>, %[[G:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[X:[^:]*]]: f32, %[[I:[^:]*]]: i32)
// The point axis: row i, tested against G.
// CHECK: %[[IL:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK: %[[ROWIN:.*]] = arith.cmpi ult, %[[I]], %[[G]] : i32
// Each of the thread's two elements: its column tested against N, then one
// atomic add under the mask.
// CHECK: %[[COLIN:.*]] = arith.cmpi ult, %{{.*}}, %[[N]] : i32
// CHECK: %[[IN:.*]] = arith.andi %[[ROWIN]], %[[COLIN]] : i1
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[DW]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: llvm.atomicrmw fadd %[[P]], %[[X]] monotonic : !llvm.ptr<1>, f32
// CHECK-NEXT: }
// CHECK: llvm.atomicrmw fadd
// CHECK-NOT: llvm.atomicrmw
// CHECK: gpu.return
phobos.kernel @add_row(%DW: !phobos.tensor<?x?xf32> {phobos.dims = ["G", "N"]}, %x: f32, %i: i32)
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %t = phobos.fill %x : !phobos.tile<64xf32, #l>
  phobos.atomic_add %t, %DW[%i, %c0] {point_axes = array<i64: 0>} : !phobos.tile<64xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A scalar: thread 0 adds once, to an i32 counter.
// CHECK-LABEL: gpu.func @count
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[FIRST]], %[[INSIDE]] : i1
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr
// CHECK-NEXT: scf.if %[[BOTH]] {
// CHECK-NEXT: llvm.atomicrmw add %[[P]], %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK-NOT: llvm.atomicrmw
// CHECK: gpu.return
phobos.kernel @count(%C: !phobos.tensor<?xi32> {phobos.dims = ["G"]}, %i: i32)
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %one = arith.constant 1 : i32
  phobos.atomic_add %one, %C[%i] {point_axes = array<i64: 0>} : i32, !phobos.tensor<?xi32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// 16 elements on 32 lanes: lanes 16-31 hold copies of lanes 0-15, and only
// the canonical copy is added.
// CHECK-LABEL: gpu.func @copies
// CHECK: %[[LANE:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[CANONICAL:.*]] = arith.cmpi ult, %{{.*}}, %[[C16]] : i32
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[CANONICAL]], %[[INSIDE]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: llvm.atomicrmw fadd
// CHECK-NOT: llvm.atomicrmw
// CHECK: gpu.return
phobos.kernel @copies(%A: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %x: f32)
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %t = phobos.fill %x : !phobos.tile<16xf32, #l>
  phobos.atomic_add %t, %A[%c0] : !phobos.tile<16xf32, #l>, !phobos.tensor<?xf32>
  phobos.return
}
