// RUN: phobos-opt %s --convert-tile-to-gpu --split-input-file | FileCheck %s --strict-whitespace

// A slice read, computed on and stored back (C = A + beta * C) is lowered
// per run of registers: each run of C is read right before the arithmetic
// and the store that need it, after the stores of the thread's other runs
// (EpilogueOrder.h), so that not every loaded register is live at once.
// A tile read from another tensor keeps its place.

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @update
// The two runs of A, in place.
// CHECK: {{^}}      %[[A0:[0-9]+]]:4 = scf.if
// CHECK: {{^}}      %[[A1:[0-9]+]]:4 = scf.if
// The first run of C, its arithmetic and its store (these keep their
// order: nothing moves that would not pass a store).
// CHECK: {{^}}      %[[C0:[0-9]+]]:4 = scf.if
// CHECK-NOT: llvm.store
// CHECK: %[[M0:.*]] = arith.mulf %{{.*}}, %[[C0]]#3 : f32
// CHECK: arith.addf %[[A0]]#3, %[[M0]] : f32
// CHECK-NOT: {{^}}      %{{[0-9]+}}:4 = scf.if
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// Then the second run, moved past the first one's store.
// CHECK: {{^}}      %[[C1:[0-9]+]]:4 = scf.if
// CHECK: %[[M1:.*]] = arith.mulf %{{.*}}, %[[C1]]#3 : f32
// CHECK-NEXT: arith.addf %[[A1]]#3, %[[M1]] : f32
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: gpu.return
phobos.kernel @update(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                      %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                      %beta: f32)
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %bx = phobos.block_id x
  %row = arith.muli %bx, %c8 : i32
  %a = phobos.load %A[%row, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<8x64xf32, #l>
  %c = phobos.load %C[%row, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<8x64xf32, #l>
  %s = phobos.mul %beta, %c : f32, !phobos.tile<8x64xf32, #l>
  %r = phobos.add %a, %s : !phobos.tile<8x64xf32, #l>, !phobos.tile<8x64xf32, #l>
  phobos.store %r, %C[%row, %c0] : !phobos.tile<8x64xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Stored to another slice (the next rows), C's runs may alias the stored
// elements: every read stays before every store.

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @shifted
// CHECK: {{^}}      %{{[0-9]+}}:4 = scf.if
// CHECK-NOT: llvm.store
// CHECK: {{^}}      %{{[0-9]+}}:4 = scf.if
// CHECK-NOT: {{^}}      %{{[0-9]+}}:4 = scf.if
// CHECK: gpu.return
phobos.kernel @shifted(%C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                       %beta: f32)
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %bx = phobos.block_id x
  %row = arith.muli %bx, %c8 : i32
  %next = arith.addi %row, %c1 : i32
  %c = phobos.load %C[%row, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<8x64xf32, #l>
  %s = phobos.mul %beta, %c : f32, !phobos.tile<8x64xf32, #l>
  phobos.store %s, %C[%next, %c0] : !phobos.tile<8x64xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A layout whose registers wrap (a 4-row tile over 8 rows of threads):
// two registers of a thread may hold one element, so nothing moves.

#l = #phobos.blocked<sizePerThread = [2, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @wrapped
// CHECK: {{^}}      %{{[0-9]+}}:4 = scf.if
// CHECK-NOT: llvm.store
// CHECK: {{^}}      %{{[0-9]+}}:4 = scf.if
// CHECK: gpu.return
phobos.kernel @wrapped(%C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                       %beta: f32)
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %bx = phobos.block_id x
  %row = arith.muli %bx, %c4 : i32
  %c = phobos.load %C[%row, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<4x64xf32, #l>
  %s = phobos.mul %beta, %c : f32, !phobos.tile<4x64xf32, #l>
  phobos.store %s, %C[%row, %c0] : !phobos.tile<4x64xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}
