// RUN: phobos-opt %s --convert-tile-to-gpu --split-input-file | FileCheck %s

// Global loads and stores: each register's index is masked against the
// tensor's extents (a masked element reads the tensor's first element and
// selects zero; a masked store is skipped), and registers consecutive along
// the contiguous axis become one 16-byte vector access when the whole
// vector is inside and aligned (checked at run time), or when it is aligned
// and its elements can only be inside or outside together (loaded under
// the first element's flag; in a kernel with an FMA product, from the
// tensor's first element and replaced by zeros instead: dot.mlir).

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @copy
// CHECK-SAME: (%[[X:[^:]*]]: !llvm.ptr<1>, %[[XM:[^:]*]]: i32, %[[XN:[^:]*]]: i32, %[[Y:[^:]*]]: !llvm.ptr<1>, %[[YM:[^:]*]]: i32, %[[YN:[^:]*]]: i32)
// Row-major strides: N elements a row.
// CHECK: %[[XNL:.*]] = arith.extsi %[[XN]] : i32 to i64
// CHECK: %[[XSTRIDE:.*]] = arith.muli %{{.*}}, %[[XNL]] : i64
// The load: row and column of each register, tested against M and N.
// CHECK: %[[BX:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[ROW0:.*]] = arith.muli %[[BX]], %{{.*}} : i32
// CHECK: %[[R:.*]] = arith.addi %[[ROW0]], %{{.*}} : i32
// CHECK: %[[RL:.*]] = arith.extsi %[[R]] : i32 to i64
// CHECK: %[[ROFF:.*]] = arith.muli %[[RL]], %[[XSTRIDE]] : i64
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[XM]] : i32
// CHECK: arith.cmpi ult, %{{.*}}, %[[XN]] : i32
// CHECK: %[[LIN0:.*]] = arith.addi %[[ROFF]], %{{.*}} : i64
// CHECK-NEXT: %[[IN0:.*]] = arith.andi %[[RIN]], %{{.*}} : i1
// The vector is used when its first and last elements are inside and its
// first element is 16-byte aligned.
// CHECK: %[[ENDS:.*]] = arith.andi %[[IN0]], %{{.*}} : i1
// CHECK: %[[MIS:.*]] = arith.andi %[[LIN0]], %{{.*}} : i64
// CHECK: %[[AL:.*]] = arith.cmpi eq, %[[MIS]], %{{.*}} : i64
// CHECK: %[[FULL:.*]] = arith.andi %[[ENDS]], %[[AL]] : i1
// Aligned, with N and the row stride multiples of 4, the vector's elements
// are inside or outside together: one vector load under the first
// element's flag, zeros without a load outside (ptxas predicates it; LLVM
// folds the test where @aligned promises N % 4 == 0).
// CHECK: %[[NMIS:.*]] = arith.andi %[[XN]], %{{.*}} : i32
// CHECK-NEXT: %[[NAL:.*]] = arith.cmpi eq, %[[NMIS]], %{{.*}} : i32
// CHECK-NEXT: %[[AL2:.*]] = arith.andi %[[AL]], %[[NAL]] : i1
// CHECK: %[[SMIS:.*]] = arith.andi %[[XSTRIDE]], %{{.*}} : i64
// CHECK-NEXT: %[[SAL:.*]] = arith.cmpi eq, %[[SMIS]], %{{.*}} : i64
// CHECK-NEXT: %[[UNI:.*]] = arith.andi %[[AL2]], %[[SAL]] : i1
// CHECK-NEXT: %[[V:.*]]:4 = scf.if %[[UNI]] -> (f32, f32, f32, f32) {
// CHECK-NEXT: %[[G:.*]]:4 = scf.if %[[IN0]] -> (f32, f32, f32, f32) {
// CHECK-NEXT: %[[UP:.*]] = llvm.getelementptr %[[X]][%[[LIN0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[UVEC:.*]] = llvm.load %[[UP]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[U0:.*]] = llvm.extractelement %[[UVEC]]
// CHECK-NOT: arith.select
// CHECK: scf.yield %[[U0]], %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[UZ:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.yield %[[UZ]], %[[UZ]], %[[UZ]], %[[UZ]] : f32, f32, f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[G]]#0, %[[G]]#1, %[[G]]#2, %[[G]]#3 : f32, f32, f32, f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %{{.*}}:4 = scf.if %[[FULL]] -> (f32, f32, f32, f32) {
// CHECK: %[[VP:.*]] = llvm.getelementptr %[[X]][%[[LIN0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[VEC:.*]] = llvm.load %[[VP]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.extractelement %[[VEC]]
// CHECK: } else {
// Element by element: out of range, the address moves to the tensor's
// first element and the value read is replaced by zero.
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[X]][%[[LIN0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[SP0:.*]] = arith.select %[[IN0]], %[[P0]], %[[X]] : !llvm.ptr<1>
// CHECK-NEXT: %[[E0:.*]] = llvm.load %[[SP0]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[S0:.*]] = arith.select %[[IN0]], %[[E0]], %[[ZERO]] : f32
// CHECK: scf.yield %[[S0]], %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK-NEXT: }
// The store: the same three forms.
// CHECK: scf.if %{{.*}} {
// CHECK: llvm.insertelement %[[V]]#0
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Q0:.*]] = llvm.getelementptr %[[Y]][%{{.*}}]
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT: llvm.store %[[V]]#0, %[[Q0]] : f32, !llvm.ptr<1>
// CHECK-NEXT: }
// CHECK: gpu.return
phobos.kernel @copy(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                    %Y: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %bx = phobos.block_id x
  %row = arith.muli %bx, %c4 : i32
  %x = phobos.load %X[%row, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<4x64xf32, #l>
  phobos.store %x, %Y[%row, %c0] : !phobos.tile<4x64xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// Axes proven in bounds compute no mask: the vector needs only its
// alignment, and the element path selects nothing. 16 bytes are 8 f16.
// CHECK-LABEL: gpu.func @in_bounds
// CHECK-SAME: (%[[H:[^:]*]]: !llvm.ptr<1>)
// CHECK-NOT: arith.cmpi ult
// CHECK-NOT: arith.select
// CHECK: %[[AL:.*]] = arith.cmpi eq
// CHECK-NEXT: scf.if %[[AL]] -> (f16, f16, f16, f16, f16, f16, f16, f16)
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK: } else {
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[H]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK-NEXT: llvm.load %[[P]] : !llvm.ptr<1> -> f16
// CHECK-NEXT: llvm.getelementptr
// CHECK-NOT: arith.select
// CHECK: gpu.return
phobos.kernel @in_bounds(%H: !phobos.tensor<256xf16> {phobos.dims = ["L"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %h = phobos.load %H[%c0] {in_bounds = array<i1: true>} : !phobos.tensor<256xf16> -> !phobos.tile<256xf16, #l>
  phobos.store %h, %H[%c0] {in_bounds = array<i1: true>} : !phobos.tile<256xf16, #l>, !phobos.tensor<256xf16>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// Scalar accesses: a load_scalar is a masked load every thread makes; a
// store_scalar is made by thread 0 alone. Bools live in memory as i8 and
// are never vectorised; a wider tile than the layout's footprint is not
// either (its registers are 32 elements apart).
// CHECK-LABEL: gpu.func @scalars
// CHECK-SAME: (%[[A:[^:]*]]: !llvm.ptr<1>, %[[AN:[^:]*]]: i32, %[[F:[^:]*]]: !llvm.ptr<1>, %[[FN:[^:]*]]: i32, %[[I:[^:]*]]: i32)
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[AN]] : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %[[A]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[SP:.*]] = arith.select %[[IN]], %[[P]], %[[A]] : !llvm.ptr<1>
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[SP]] : !llvm.ptr<1> -> f32
// CHECK: %[[SV:.*]] = arith.select %[[IN]], %[[V]], %{{.*}} : f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK-NEXT: %[[W:.*]] = arith.andi %[[FIRST]], %{{.*}} : i1
// CHECK-NEXT: %[[Q:.*]] = llvm.getelementptr %[[A]][%{{.*}}]
// CHECK-NEXT: scf.if %[[W]] {
// CHECK-NEXT: llvm.store %[[SV]], %[[Q]] : f32, !llvm.ptr<1>
// CHECK-NOT: vector<
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK: %[[BIT:.*]] = arith.cmpi ne, %[[B]], %{{.*}} : i8
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: llvm.store %{{.*}} : i8, !llvm.ptr<1>
// CHECK-NOT: vector<
// CHECK: gpu.return
phobos.kernel @scalars(%A: !phobos.tensor<?xf32> {phobos.dims = ["N"]},
                       %F: !phobos.tensor<?xi1> {phobos.dims = ["N"]}, %i: i32)
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load_scalar %A[%i] : !phobos.tensor<?xf32>
  phobos.store_scalar %x, %A[%c0] : !phobos.tensor<?xf32>
  %f = phobos.load %F[%c0] : !phobos.tensor<?xi1> -> !phobos.tile<32xi1, #l>
  %g = phobos.not %f : !phobos.tile<32xi1, #l>
  phobos.store %g, %F[%c0] : !phobos.tile<32xi1, #l>, !phobos.tensor<?xi1>
  phobos.return
}
