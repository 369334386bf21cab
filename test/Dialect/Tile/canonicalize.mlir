// RUN: phobos-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds and canonicalisation patterns of the phobos ops.

//===----------------------------------------------------------------------===//
// phobos.dim
//===----------------------------------------------------------------------===//

// A static extent folds to an i32 constant; a dynamic one stays.
// CHECK-LABEL: phobos.kernel @dim_static
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tensor<?x64xf32>, %[[OUT:[^:]*]]: !phobos.tensor<2xi32>)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[M:.*]] = phobos.dim %[[A]][0] : !phobos.tensor<?x64xf32>
// CHECK-NOT: phobos.dim
// CHECK: phobos.store_scalar %[[M]], %[[OUT]][%[[C0]]]
// CHECK: phobos.store_scalar %[[C64]], %[[OUT]][%[[C1]]]
phobos.kernel @dim_static(%A: !phobos.tensor<?x64xf32>, %out: !phobos.tensor<2xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = phobos.dim %A[0] : !phobos.tensor<?x64xf32>
  %k = phobos.dim %A[1] : !phobos.tensor<?x64xf32>
  phobos.store_scalar %m, %out[%c0] : !phobos.tensor<2xi32>
  phobos.store_scalar %k, %out[%c1] : !phobos.tensor<2xi32>
  phobos.return
}

// -----

// The extent of the output tensor folds too, and the fold feeds further
// arith folds.
// CHECK-LABEL: phobos.kernel @dim_static_arith
// CHECK: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NOT: phobos.dim
// CHECK: phobos.store_scalar %[[C8]]
phobos.kernel @dim_static_arith(%out: !phobos.tensor<4xi32>) {
  %c0 = arith.constant 0 : i32
  %n = phobos.dim %out[0] : !phobos.tensor<4xi32>
  %twice = arith.addi %n, %n : i32
  phobos.store_scalar %twice, %out[%c0] : !phobos.tensor<4xi32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// phobos.cast
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<64x64xf32>)
// CHECK-NOT: phobos.cast
// CHECK: return %[[X]]
func.func @cast_same_type(%x: !phobos.tile<64x64xf32>) -> !phobos.tile<64x64xf32> {
  %0 = phobos.cast %x : !phobos.tile<64x64xf32> to !phobos.tile<64x64xf32>
  return %0 : !phobos.tile<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @cast_other_type
// CHECK: %[[C:.*]] = phobos.cast %{{.*}} : !phobos.tile<64x64xf32> to !phobos.tile<64x64xf16>
// CHECK: return %[[C]]
func.func @cast_other_type(%x: !phobos.tile<64x64xf32>) -> !phobos.tile<64x64xf16> {
  %0 = phobos.cast %x : !phobos.tile<64x64xf32> to !phobos.tile<64x64xf16>
  return %0 : !phobos.tile<64x64xf16>
}

//===----------------------------------------------------------------------===//
// phobos.reshape
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<8x8xi32>)
// CHECK-NOT: phobos.reshape
// CHECK: return %[[X]]
func.func @reshape_same_type(%x: !phobos.tile<8x8xi32>) -> !phobos.tile<8x8xi32> {
  %0 = phobos.reshape %x : !phobos.tile<8x8xi32> -> !phobos.tile<8x8xi32>
  return %0 : !phobos.tile<8x8xi32>
}

// -----

// reshape(reshape(x)) is one reshape of x.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<64xi32>)
// CHECK-NEXT: %[[R:.*]] = phobos.reshape %[[X]] : !phobos.tile<64xi32> -> !phobos.tile<4x16xi32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: !phobos.tile<64xi32>) -> !phobos.tile<4x16xi32> {
  %0 = phobos.reshape %x : !phobos.tile<64xi32> -> !phobos.tile<8x8xi32>
  %1 = phobos.reshape %0 : !phobos.tile<8x8xi32> -> !phobos.tile<4x16xi32>
  return %1 : !phobos.tile<4x16xi32>
}

// -----

// A chain that comes back to the source's type disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<64xi32>)
// CHECK-NOT: phobos.reshape
// CHECK: return %[[X]]
func.func @reshape_round_trip(%x: !phobos.tile<64xi32>) -> !phobos.tile<64xi32> {
  %0 = phobos.reshape %x : !phobos.tile<64xi32> -> !phobos.tile<8x8xi32>
  %1 = phobos.reshape %0 : !phobos.tile<8x8xi32> -> !phobos.tile<2x32xi32>
  %2 = phobos.reshape %1 : !phobos.tile<2x32xi32> -> !phobos.tile<64xi32>
  return %2 : !phobos.tile<64xi32>
}

// -----

// The inner reshape stays while it has another use.
// CHECK-LABEL: func.func @reshape_of_shared_reshape
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<64xi32>)
// CHECK-DAG: %[[A:.*]] = phobos.reshape %[[X]] : !phobos.tile<64xi32> -> !phobos.tile<8x8xi32>
// CHECK-DAG: %[[B:.*]] = phobos.reshape %[[X]] : !phobos.tile<64xi32> -> !phobos.tile<4x16xi32>
// CHECK: return %[[A]], %[[B]]
func.func @reshape_of_shared_reshape(%x: !phobos.tile<64xi32>)
    -> (!phobos.tile<8x8xi32>, !phobos.tile<4x16xi32>) {
  %0 = phobos.reshape %x : !phobos.tile<64xi32> -> !phobos.tile<8x8xi32>
  %1 = phobos.reshape %0 : !phobos.tile<8x8xi32> -> !phobos.tile<4x16xi32>
  return %0, %1 : !phobos.tile<8x8xi32>, !phobos.tile<4x16xi32>
}

//===----------------------------------------------------------------------===//
// phobos.transpose
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<16x32xf32>)
// CHECK-NOT: phobos.transpose
// CHECK: return %[[X]]
func.func @transpose_of_transpose(%x: !phobos.tile<16x32xf32>) -> !phobos.tile<16x32xf32> {
  %0 = phobos.transpose %x : !phobos.tile<16x32xf32> -> !phobos.tile<32x16xf32>
  %1 = phobos.transpose %0 : !phobos.tile<32x16xf32> -> !phobos.tile<16x32xf32>
  return %1 : !phobos.tile<16x32xf32>
}

// -----

// CHECK-LABEL: func.func @single_transpose
// CHECK: %[[T:.*]] = phobos.transpose %{{.*}} : !phobos.tile<16x32xf32> -> !phobos.tile<32x16xf32>
// CHECK: return %[[T]]
func.func @single_transpose(%x: !phobos.tile<16x32xf32>) -> !phobos.tile<32x16xf32> {
  %0 = phobos.transpose %x : !phobos.tile<16x32xf32> -> !phobos.tile<32x16xf32>
  return %0 : !phobos.tile<32x16xf32>
}

//===----------------------------------------------------------------------===//
// phobos.broadcast
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<64x128xf32>)
// CHECK-NOT: phobos.broadcast
// CHECK: return %[[X]]
func.func @broadcast_same_type(%x: !phobos.tile<64x128xf32>) -> !phobos.tile<64x128xf32> {
  %0 = phobos.broadcast %x : !phobos.tile<64x128xf32> -> !phobos.tile<64x128xf32>
  return %0 : !phobos.tile<64x128xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_stretches
// CHECK: %[[B:.*]] = phobos.broadcast %{{.*}} : !phobos.tile<64x1xf32> -> !phobos.tile<64x128xf32>
// CHECK: return %[[B]]
func.func @broadcast_stretches(%x: !phobos.tile<64x1xf32>) -> !phobos.tile<64x128xf32> {
  %0 = phobos.broadcast %x : !phobos.tile<64x1xf32> -> !phobos.tile<64x128xf32>
  return %0 : !phobos.tile<64x128xf32>
}

//===----------------------------------------------------------------------===//
// add(acc, dot(a, b)) -> dot(a, b, acc)
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @fuse_add_dot_lhs
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tile<64x16xf32>, %[[B:[^:]*]]: !phobos.tile<16x32xf32>, %[[ACC:[^:]*]]: !phobos.tile<64x32xf32>)
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[A]], %[[B]], %[[ACC]] : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
// CHECK-NEXT: return %[[D]]
func.func @fuse_add_dot_lhs(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>,
                            %acc: !phobos.tile<64x32xf32>) -> !phobos.tile<64x32xf32> {
  %p = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %s = phobos.add %acc, %p : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
  return %s : !phobos.tile<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @fuse_add_dot_rhs
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tile<64x16xf32>, %[[B:[^:]*]]: !phobos.tile<16x32xf32>, %[[ACC:[^:]*]]: !phobos.tile<64x32xf32>)
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[A]], %[[B]], %[[ACC]] : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
// CHECK-NEXT: return %[[D]]
func.func @fuse_add_dot_rhs(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>,
                            %acc: !phobos.tile<64x32xf32>) -> !phobos.tile<64x32xf32> {
  %p = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %s = phobos.add %p, %acc : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
  return %s : !phobos.tile<64x32xf32>
}

// -----

// The fused dot keeps precision and transpose_b.
// CHECK-LABEL: func.func @fuse_keeps_attributes
// CHECK-SAME: (%[[Q:[^:]*]]: !phobos.tile<64x16xf32>, %[[K:[^:]*]]: !phobos.tile<32x16xf32>, %[[ACC:[^:]*]]: !phobos.tile<64x32xf32>)
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[Q]], %[[K]], %[[ACC]] precision(tf32) transpose_b : !phobos.tile<64x16xf32>, !phobos.tile<32x16xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
// CHECK-NEXT: return %[[D]]
func.func @fuse_keeps_attributes(%q: !phobos.tile<64x16xf32>, %k: !phobos.tile<32x16xf32>,
                                 %acc: !phobos.tile<64x32xf32>) -> !phobos.tile<64x32xf32> {
  %p = phobos.dot %q, %k precision(tf32) transpose_b
      : !phobos.tile<64x16xf32>, !phobos.tile<32x16xf32> -> !phobos.tile<64x32xf32>
  %s = phobos.add %acc, %p : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
  return %s : !phobos.tile<64x32xf32>
}

// -----

// The typical K loop of a matmul: the add in the loop body folds into the dot
// that is computed there.
// CHECK-LABEL: phobos.kernel @fuse_in_k_loop
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (!phobos.tile<64x64xf32>)
// CHECK: %[[A:.*]] = phobos.load
// CHECK: %[[B:.*]] = phobos.load
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[A]], %[[B]], %[[ACC]] : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK-NOT: phobos.add
phobos.kernel @fuse_in_k_loop(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>,
                              %C: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %a = phobos.load %A[%c0, %k0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
    %b = phobos.load %B[%k0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32>
    %p = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
    %s = phobos.add %acc, %p : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
    scf.yield %s : !phobos.tile<64x64xf32>
  }
  phobos.store %acc, %C[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// No fusion: the product has a second use.
// CHECK-LABEL: func.func @no_fuse_second_use
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tile<64x16xf32>, %[[B:[^:]*]]: !phobos.tile<16x32xf32>, %[[ACC:[^:]*]]: !phobos.tile<64x32xf32>)
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[A]], %[[B]] : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[ACC]], %[[D]]
// CHECK-NEXT: return %[[S]], %[[D]]
func.func @no_fuse_second_use(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>,
                              %acc: !phobos.tile<64x32xf32>)
    -> (!phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>) {
  %p = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %s = phobos.add %acc, %p : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
  return %s, %p : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
}

// -----

// No fusion: add(p, p) uses the product twice.
// CHECK-LABEL: func.func @no_fuse_self_add
// CHECK: %[[D:.*]] = phobos.dot
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[D]], %[[D]]
// CHECK-NEXT: return %[[S]]
func.func @no_fuse_self_add(%a: !phobos.tile<32x32xf32>) -> !phobos.tile<32x32xf32> {
  %p = phobos.dot %a, %a : !phobos.tile<32x32xf32>, !phobos.tile<32x32xf32> -> !phobos.tile<32x32xf32>
  %s = phobos.add %p, %p : !phobos.tile<32x32xf32>, !phobos.tile<32x32xf32>
  return %s : !phobos.tile<32x32xf32>
}

// -----

// No fusion: the dot already accumulates.
// CHECK-LABEL: func.func @no_fuse_existing_acc
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tile<64x16xf32>, %[[B:[^:]*]]: !phobos.tile<16x32xf32>, %[[ACC:[^:]*]]: !phobos.tile<64x32xf32>, %[[OTHER:[^:]*]]: !phobos.tile<64x32xf32>)
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[A]], %[[B]], %[[ACC]]
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[OTHER]], %[[D]]
// CHECK-NEXT: return %[[S]]
func.func @no_fuse_existing_acc(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>,
                                %acc: !phobos.tile<64x32xf32>, %other: !phobos.tile<64x32xf32>)
    -> !phobos.tile<64x32xf32> {
  %p = phobos.dot %a, %b, %acc : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>,
      !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
  %s = phobos.add %other, %p : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
  return %s : !phobos.tile<64x32xf32>
}

// -----

// No fusion: the add broadcasts a [64, 1] bias over the product.
// CHECK-LABEL: func.func @no_fuse_broadcast_acc
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tile<64x16xf32>, %[[B:[^:]*]]: !phobos.tile<16x32xf32>, %[[BIAS:[^:]*]]: !phobos.tile<64x1xf32>)
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[A]], %[[B]] : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[BIAS]], %[[D]] : !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>
// CHECK-NEXT: return %[[S]]
func.func @no_fuse_broadcast_acc(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>,
                                 %bias: !phobos.tile<64x1xf32>) -> !phobos.tile<64x32xf32> {
  %p = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %s = phobos.add %bias, %p : !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>
  return %s : !phobos.tile<64x32xf32>
}

// -----

// No fusion: the product is a [1, 1] tile that the add stretches to the
// accumulator's [4, 8] shape.
// CHECK-LABEL: func.func @no_fuse_broadcast_product
// CHECK: %[[D:.*]] = phobos.dot {{.*}} -> !phobos.tile<1x1xf32>
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[D]], %{{.*}} : !phobos.tile<1x1xf32>, !phobos.tile<4x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @no_fuse_broadcast_product(%a: !phobos.tile<1x16xf32>, %b: !phobos.tile<16x1xf32>,
                                     %acc: !phobos.tile<4x8xf32>) -> !phobos.tile<4x8xf32> {
  %p = phobos.dot %a, %b : !phobos.tile<1x16xf32>, !phobos.tile<16x1xf32> -> !phobos.tile<1x1xf32>
  %s = phobos.add %p, %acc : !phobos.tile<1x1xf32>, !phobos.tile<4x8xf32>
  return %s : !phobos.tile<4x8xf32>
}

// -----

// No fusion: a scalar addend is a broadcast too.
// CHECK-LABEL: func.func @no_fuse_scalar_acc
// CHECK: %[[D:.*]] = phobos.dot
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[D]], %{{.*}} : !phobos.tile<64x32xf32>, f32
// CHECK-NEXT: return %[[S]]
func.func @no_fuse_scalar_acc(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>,
                              %x: f32) -> !phobos.tile<64x32xf32> {
  %p = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %s = phobos.add %p, %x : !phobos.tile<64x32xf32>, f32
  return %s : !phobos.tile<64x32xf32>
}

// -----

// No fusion: the product is loop-invariant. Folding the add into it would
// move the dot into the loop and compute it on every iteration.
// CHECK-LABEL: func.func @no_fuse_into_loop
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tile<16x16xf32>, %[[INIT:[^:]*]]: !phobos.tile<16x16xf32>, %[[N:[^:]*]]: index)
// CHECK: %[[D:.*]] = phobos.dot %[[A]], %[[A]] : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[ACC]], %[[D]]
// CHECK-NEXT: scf.yield %[[S]]
func.func @no_fuse_into_loop(%a: !phobos.tile<16x16xf32>, %init: !phobos.tile<16x16xf32>,
                             %n: index) -> !phobos.tile<16x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = phobos.dot %a, %a : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!phobos.tile<16x16xf32>) {
    %s = phobos.add %acc, %p : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
    scf.yield %s : !phobos.tile<16x16xf32>
  }
  return %r : !phobos.tile<16x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// arith.select on tiles
//===----------------------------------------------------------------------===//

// An `if` whose branches only yield tiles becomes a select; on tiles it is
// a phobos.select, which layout assignment and the lowerings know (found by
// the differential fuzzer: arith.select's operands got different layouts).
// CHECK-LABEL: phobos.kernel @if_of_tiles
// CHECK: %[[C:.*]] = arith.cmpf ole
// CHECK: %[[S:.*]] = phobos.select %[[C]], %{{.*}}, %{{.*}} : i1, !phobos.tile<128xf32>, !phobos.tile<128xf32>
// CHECK-NOT: arith.select
// CHECK-NOT: scf.if
// CHECK: phobos.store %[[S]]
phobos.kernel @if_of_tiles(%x: !phobos.tensor<?xf32>, %s: f32, %out: !phobos.tensor<?xf32>) {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %a = phobos.load %x[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<128xf32>
  %b = phobos.neg %a : !phobos.tile<128xf32>
  %cond = arith.cmpf ole, %zero, %s : f32
  %r = scf.if %cond -> !phobos.tile<128xf32> {
    scf.yield %a : !phobos.tile<128xf32>
  } else {
    scf.yield %b : !phobos.tile<128xf32>
  }
  phobos.store %r, %out[%c0] : !phobos.tile<128xf32>, !phobos.tensor<?xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// phobos.select with a constant condition
//===----------------------------------------------------------------------===//

// -----

// A constant flag picks one side. Where that side is narrower than the
// select, an element-wise user whose result keeps its type takes it as it
// is (the select's condition here: `cols < N` stays a `where`'s condition,
// as tile-split-ragged-loops looks for it, and the add takes the scalar); a
// user that needs the select's shape (the store) gets it broadcast.
// CHECK-LABEL: phobos.kernel @select_constant
// CHECK-SAME: (%[[X:[^:]*]]: !phobos.tensor<?x?xf32>, %[[M:[^:]*]]: !phobos.tensor<16x32xi1>, %[[N:[^:]*]]: i32)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[COLS:.*]] = phobos.arange : !phobos.tile<32xi32>
// CHECK: %[[LT:.*]] = phobos.cmp lt, %[[COLS]], %[[N]] : !phobos.tile<32xi32>, i32
// CHECK: %[[B:.*]] = phobos.broadcast %[[LT]] : !phobos.tile<32xi1> -> !phobos.tile<16x32xi1>
// CHECK: %[[T:.*]] = phobos.load %[[X]]
// CHECK: %[[S:.*]] = phobos.select %[[LT]], %[[T]], %[[ZERO]] : !phobos.tile<32xi1>, !phobos.tile<16x32xf32>, f32
// CHECK: phobos.store %[[B]], %[[M]]
// CHECK: phobos.add %[[S]], %[[ZERO]] : !phobos.tile<16x32xf32>, f32
// CHECK-NOT: phobos.select
phobos.kernel @select_constant(%X: !phobos.tensor<?x?xf32>, %M: !phobos.tensor<16x32xi1>, %N: i32) {
  %false = arith.constant false
  %true = arith.constant true
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %rows = phobos.arange : !phobos.tile<16xi32>
  %rows2 = phobos.reshape %rows : !phobos.tile<16xi32> -> !phobos.tile<16x1xi32>
  %cols = phobos.arange : !phobos.tile<32xi32>
  %le = phobos.cmp le, %cols, %rows2 : !phobos.tile<32xi32>, !phobos.tile<16x1xi32>
  %lt = phobos.cmp lt, %cols, %N : !phobos.tile<32xi32>, i32
  %keep = phobos.select %false, %le, %lt : i1, !phobos.tile<16x32xi1>, !phobos.tile<32xi1>
  %t = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
  %s = phobos.select %keep, %t, %zero : !phobos.tile<16x32xi1>, !phobos.tile<16x32xf32>, f32
  phobos.store %keep, %M[%c0, %c0] : !phobos.tile<16x32xi1>, !phobos.tensor<16x32xi1>
  %z = phobos.select %true, %zero, %t : i1, f32, !phobos.tile<16x32xf32>
  %sum = phobos.add %s, %z : !phobos.tile<16x32xf32>, !phobos.tile<16x32xf32>
  phobos.store %sum, %X[%c0, %c0] : !phobos.tile<16x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A scalar side chosen for a user that needs a tile becomes a fill.
// CHECK-LABEL: phobos.kernel @select_constant_scalar
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = phobos.fill %[[ZERO]] : !phobos.tile<16xf32>
// CHECK: phobos.store %[[F]]
phobos.kernel @select_constant_scalar(%X: !phobos.tensor<?xf32>) {
  %true = arith.constant true
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %t = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
  %z = phobos.select %true, %zero, %t : i1, f32, !phobos.tile<16xf32>
  phobos.store %z, %X[%c0] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
  phobos.return
}
