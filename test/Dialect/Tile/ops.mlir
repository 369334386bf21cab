// RUN: phobos-opt %s | phobos-opt | FileCheck %s
// RUN: phobos-opt %s --mlir-print-op-generic | phobos-opt | FileCheck %s

// Round-trip of every phobos op with every optional part, through the custom
// and the generic syntax.

//===----------------------------------------------------------------------===//
// Grid and tensor queries
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @grid_queries
// CHECK-SAME: (%[[A:.*]]: !phobos.tensor<?x64x?xf32>)
phobos.kernel @grid_queries(%A: !phobos.tensor<?x64x?xf32>) {
  // CHECK: phobos.block_id x
  // CHECK: phobos.block_id y
  // CHECK: phobos.block_id z
  %bx = phobos.block_id x
  %by = phobos.block_id y
  %bz = phobos.block_id z
  // CHECK: phobos.block_id x group 8
  // CHECK: phobos.block_id y group 8
  %gbx = phobos.block_id x group 8
  %gby = phobos.block_id y group 8
  // CHECK: phobos.grid_dim x
  // CHECK: phobos.grid_dim y
  // CHECK: phobos.grid_dim z
  %gx = phobos.grid_dim x
  %gy = phobos.grid_dim y
  %gz = phobos.grid_dim z
  // CHECK: phobos.dim %[[A]][0] : !phobos.tensor<?x64x?xf32>
  // CHECK: phobos.dim %[[A]][1] : !phobos.tensor<?x64x?xf32>
  // CHECK: phobos.dim %[[A]][2] : !phobos.tensor<?x64x?xf32>
  %d0 = phobos.dim %A[0] : !phobos.tensor<?x64x?xf32>
  %d1 = phobos.dim %A[1] : !phobos.tensor<?x64x?xf32>
  %d2 = phobos.dim %A[2] : !phobos.tensor<?x64x?xf32>
  // CHECK: phobos.return
  phobos.return
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @memory
// CHECK-SAME: (%[[Q:[^:]*]]: !phobos.tensor<?x?x64xf16>, %[[C:[^:]*]]: !phobos.tensor<?x?xf32>, %[[I:[^:]*]]: i32)
phobos.kernel @memory(%Q: !phobos.tensor<?x?x64xf16>,
                      %C: !phobos.tensor<?x?xf32>, %i: i32) {
  // CHECK: %[[C0:.*]] = arith.constant 0 : i32
  %c0 = arith.constant 0 : i32

  // CHECK: %[[T:.*]] = phobos.load %[[C]][%[[I]], %[[C0]]] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
  %t = phobos.load %C[%i, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
  // CHECK: phobos.load %[[Q]][%[[I]], %[[C0]], %[[C0]]] {point_axes = array<i64: 0>} : !phobos.tensor<?x?x64xf16> -> !phobos.tile<32x64xf16>
  %q = phobos.load %Q[%i, %c0, %c0] {point_axes = array<i64: 0>}
      : !phobos.tensor<?x?x64xf16> -> !phobos.tile<32x64xf16>
  // CHECK: phobos.load %[[Q]][%[[I]], %[[C0]], %[[C0]]] {in_bounds = array<i1: false, false, true>} : !phobos.tensor<?x?x64xf16> -> !phobos.tile<1x32x64xf16>
  %q3 = phobos.load %Q[%i, %c0, %c0] {in_bounds = array<i1: false, false, true>}
      : !phobos.tensor<?x?x64xf16> -> !phobos.tile<1x32x64xf16>
  // CHECK: %[[ROW:.*]] = phobos.load %[[Q]][%[[I]], %[[C0]], %[[C0]]] {in_bounds = array<i1: true, false, true>, point_axes = array<i64: 0, 1>} : !phobos.tensor<?x?x64xf16> -> !phobos.tile<64xf16>
  %row = phobos.load %Q[%i, %c0, %c0] {point_axes = array<i64: 0, 1>, in_bounds = array<i1: true, false, true>}
      : !phobos.tensor<?x?x64xf16> -> !phobos.tile<64xf16>

  // CHECK: phobos.store %[[T]], %[[C]][%[[C0]], %[[I]]] : !phobos.tile<64x16xf32>, !phobos.tensor<?x?xf32>
  phobos.store %t, %C[%c0, %i] : !phobos.tile<64x16xf32>, !phobos.tensor<?x?xf32>
  // CHECK: phobos.store %[[ROW]], %[[Q]][%[[C0]], %[[I]], %[[C0]]] {in_bounds = array<i1: true, true, true>, point_axes = array<i64: 0, 1>} : !phobos.tile<64xf16>, !phobos.tensor<?x?x64xf16>
  phobos.store %row, %Q[%c0, %i, %c0] {point_axes = array<i64: 0, 1>, in_bounds = array<i1: true, true, true>}
      : !phobos.tile<64xf16>, !phobos.tensor<?x?x64xf16>

  // CHECK: %[[X:.*]] = phobos.load_scalar %[[C]][%[[I]], %[[C0]]] : !phobos.tensor<?x?xf32>
  %x = phobos.load_scalar %C[%i, %c0] : !phobos.tensor<?x?xf32>
  // CHECK: phobos.store_scalar %[[X]], %[[C]][%[[C0]], %[[I]]] : !phobos.tensor<?x?xf32>
  phobos.store_scalar %x, %C[%c0, %i] : !phobos.tensor<?x?xf32>
  // CHECK: %[[H:.*]] = phobos.load_scalar %[[Q]][%[[I]], %[[I]], %[[C0]]] : !phobos.tensor<?x?x64xf16>
  %h = phobos.load_scalar %Q[%i, %i, %c0] : !phobos.tensor<?x?x64xf16>
  // CHECK: phobos.store_scalar %[[H]], %[[Q]][%[[C0]], %[[C0]], %[[I]]] : !phobos.tensor<?x?x64xf16>
  phobos.store_scalar %h, %Q[%c0, %c0, %i] : !phobos.tensor<?x?x64xf16>
  phobos.return
}

// CHECK-LABEL: phobos.kernel @atomics
// CHECK-SAME: (%[[DW:[^:]*]]: !phobos.tensor<?x?xf32>, %[[N:[^:]*]]: !phobos.tensor<?xi32>, %[[I:[^:]*]]: i32)
phobos.kernel @atomics(%DW: !phobos.tensor<?x?xf32>, %Count: !phobos.tensor<?xi32>, %i: i32) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %x = arith.constant 1.0 : f32
  %t = phobos.fill %x : !phobos.tile<256xf32>
  // CHECK: phobos.atomic_add %{{.*}}, %[[DW]][%[[I]], %{{.*}}] {point_axes = array<i64: 0>} : !phobos.tile<256xf32>, !phobos.tensor<?x?xf32>
  phobos.atomic_add %t, %DW[%i, %c0] {point_axes = array<i64: 0>} : !phobos.tile<256xf32>, !phobos.tensor<?x?xf32>
  // CHECK: phobos.atomic_add %{{.*}}, %[[N]][%[[I]]] {point_axes = array<i64: 0>} : i32, !phobos.tensor<?xi32>
  phobos.atomic_add %one, %Count[%i] {point_axes = array<i64: 0>} : i32, !phobos.tensor<?xi32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// Tile construction and conversion
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @construction
// CHECK-SAME: (%[[S:[^:]*]]: f32, %[[N:[^:]*]]: i32)
phobos.kernel @construction(%s: f32, %n: i32) {
  // CHECK: %[[ACC:.*]] = phobos.fill %[[S]] : !phobos.tile<64x64xf32>
  %acc = phobos.fill %s : !phobos.tile<64x64xf32>
  // CHECK: phobos.fill %[[N]] : !phobos.tile<8xi32>
  %fi = phobos.fill %n : !phobos.tile<8xi32>
  // CHECK: %[[TRUE:.*]] = arith.constant true
  // CHECK: phobos.fill %[[TRUE]] : !phobos.tile<4x4xi1>
  %true = arith.constant true
  %fb = phobos.fill %true : !phobos.tile<4x4xi1>

  // CHECK: %[[COLS:.*]] = phobos.arange : !phobos.tile<64xi32>
  %cols = phobos.arange : !phobos.tile<64xi32>
  // CHECK: %[[COL:.*]] = phobos.reshape %[[COLS]] : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
  %col = phobos.reshape %cols : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
  // CHECK: phobos.reshape %[[ACC]] : !phobos.tile<64x64xf32> -> !phobos.tile<16x4x64xf32>
  %r3 = phobos.reshape %acc : !phobos.tile<64x64xf32> -> !phobos.tile<16x4x64xf32>

  // CHECK: phobos.broadcast %[[COL]] : !phobos.tile<64x1xi32> -> !phobos.tile<64x128xi32>
  %b = phobos.broadcast %col : !phobos.tile<64x1xi32> -> !phobos.tile<64x128xi32>
  // CHECK: phobos.broadcast %[[COLS]] : !phobos.tile<64xi32> -> !phobos.tile<2x3x64xi32>
  %b3 = phobos.broadcast %cols : !phobos.tile<64xi32> -> !phobos.tile<2x3x64xi32>

  // CHECK: phobos.cast %[[ACC]] : !phobos.tile<64x64xf32> to !phobos.tile<64x64xf16>
  %h = phobos.cast %acc : !phobos.tile<64x64xf32> to !phobos.tile<64x64xf16>
  // CHECK: phobos.cast %[[ACC]] : !phobos.tile<64x64xf32> to !phobos.tile<64x64xbf16>
  %bf = phobos.cast %acc : !phobos.tile<64x64xf32> to !phobos.tile<64x64xbf16>
  // CHECK: phobos.cast %[[COLS]] : !phobos.tile<64xi32> to !phobos.tile<64xf64>
  %d = phobos.cast %cols : !phobos.tile<64xi32> to !phobos.tile<64xf64>
  // CHECK: phobos.cast %[[COLS]] : !phobos.tile<64xi32> to !phobos.tile<64xi1>
  %m = phobos.cast %cols : !phobos.tile<64xi32> to !phobos.tile<64xi1>
  // CHECK: phobos.cast %[[COLS]] : !phobos.tile<64xi32> to !phobos.tile<64xi64>
  %w = phobos.cast %cols : !phobos.tile<64xi32> to !phobos.tile<64xi64>
  phobos.return
}

//===----------------------------------------------------------------------===//
// Unary element-wise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @unary
// CHECK-SAME: (%[[F:[^:]*]]: f32, %[[N:[^:]*]]: i32, %[[B:[^:]*]]: i1)
phobos.kernel @unary(%f: f32, %n: i32, %b: i1) {
  // CHECK: %[[T:.*]] = phobos.fill %[[F]] : !phobos.tile<32x32xf32>
  // CHECK: %[[TI:.*]] = phobos.fill %[[N]] : !phobos.tile<32xi32>
  // CHECK: %[[TB:.*]] = phobos.fill %[[B]] : !phobos.tile<32xi1>
  %t = phobos.fill %f : !phobos.tile<32x32xf32>
  %ti = phobos.fill %n : !phobos.tile<32xi32>
  %tb = phobos.fill %b : !phobos.tile<32xi1>
  // CHECK: phobos.neg %[[T]] : !phobos.tile<32x32xf32>
  // CHECK: phobos.neg %[[TI]] : !phobos.tile<32xi32>
  %neg = phobos.neg %t : !phobos.tile<32x32xf32>
  %negi = phobos.neg %ti : !phobos.tile<32xi32>
  // CHECK: phobos.not %[[TB]] : !phobos.tile<32xi1>
  %not = phobos.not %tb : !phobos.tile<32xi1>
  // CHECK: phobos.abs %[[T]] : !phobos.tile<32x32xf32>
  // CHECK: phobos.abs %[[TI]] : !phobos.tile<32xi32>
  %abs = phobos.abs %t : !phobos.tile<32x32xf32>
  %absi = phobos.abs %ti : !phobos.tile<32xi32>
  // CHECK: phobos.exp %[[T]] : !phobos.tile<32x32xf32>
  %exp = phobos.exp %t : !phobos.tile<32x32xf32>
  // CHECK: phobos.log %[[T]] : !phobos.tile<32x32xf32>
  %log = phobos.log %t : !phobos.tile<32x32xf32>
  // CHECK: phobos.sqrt %[[T]] : !phobos.tile<32x32xf32>
  %sqrt = phobos.sqrt %t : !phobos.tile<32x32xf32>
  // CHECK: phobos.rsqrt %[[T]] : !phobos.tile<32x32xf32>
  %rsqrt = phobos.rsqrt %t : !phobos.tile<32x32xf32>
  // CHECK: phobos.tanh %[[T]] : !phobos.tile<32x32xf32>
  %tanh = phobos.tanh %t : !phobos.tile<32x32xf32>
  // CHECK: phobos.exp2 %[[T]] : !phobos.tile<32x32xf32>
  %exp2 = phobos.exp2 %t : !phobos.tile<32x32xf32>
  // CHECK: phobos.log2 %[[T]] : !phobos.tile<32x32xf32>
  %log2 = phobos.log2 %t : !phobos.tile<32x32xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// Binary element-wise ops: tile-tile, tile-scalar, scalar-tile, broadcasting
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @binary
// CHECK-SAME: (%[[S:[^:]*]]: f32, %[[N:[^:]*]]: i32, %[[B:[^:]*]]: i1)
phobos.kernel @binary(%s: f32, %n: i32, %b: i1) {
  // CHECK: %[[T:.*]] = phobos.fill %[[S]] : !phobos.tile<64x128xf32>
  // CHECK: %[[COL:.*]] = phobos.fill %[[S]] : !phobos.tile<64x1xf32>
  // CHECK: %[[ROW:.*]] = phobos.fill %[[S]] : !phobos.tile<128xf32>
  // CHECK: %[[TI:.*]] = phobos.fill %[[N]] : !phobos.tile<16xi32>
  %t = phobos.fill %s : !phobos.tile<64x128xf32>
  %col = phobos.fill %s : !phobos.tile<64x1xf32>
  %row = phobos.fill %s : !phobos.tile<128xf32>
  %ti = phobos.fill %n : !phobos.tile<16xi32>

  // CHECK: phobos.add %[[T]], %[[T]] : !phobos.tile<64x128xf32>, !phobos.tile<64x128xf32>
  // CHECK: phobos.add %[[T]], %[[S]] : !phobos.tile<64x128xf32>, f32
  // CHECK: phobos.add %[[S]], %[[T]] : f32, !phobos.tile<64x128xf32>
  // CHECK: phobos.add %[[COL]], %[[ROW]] : !phobos.tile<64x1xf32>, !phobos.tile<128xf32>
  %add0 = phobos.add %t, %t : !phobos.tile<64x128xf32>, !phobos.tile<64x128xf32>
  %add1 = phobos.add %t, %s : !phobos.tile<64x128xf32>, f32
  %add2 = phobos.add %s, %t : f32, !phobos.tile<64x128xf32>
  %add3 = phobos.add %col, %row : !phobos.tile<64x1xf32>, !phobos.tile<128xf32>

  // CHECK: phobos.sub %[[T]], %[[COL]] : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  // CHECK: phobos.sub %[[T]], %[[S]] : !phobos.tile<64x128xf32>, f32
  // CHECK: phobos.sub %[[S]], %[[ROW]] : f32, !phobos.tile<128xf32>
  %sub0 = phobos.sub %t, %col : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  %sub1 = phobos.sub %t, %s : !phobos.tile<64x128xf32>, f32
  %sub2 = phobos.sub %s, %row : f32, !phobos.tile<128xf32>

  // CHECK: phobos.mul %[[ROW]], %[[T]] : !phobos.tile<128xf32>, !phobos.tile<64x128xf32>
  // CHECK: phobos.mul %[[T]], %[[S]] : !phobos.tile<64x128xf32>, f32
  // CHECK: phobos.mul %[[S]], %[[COL]] : f32, !phobos.tile<64x1xf32>
  %mul0 = phobos.mul %row, %t : !phobos.tile<128xf32>, !phobos.tile<64x128xf32>
  %mul1 = phobos.mul %t, %s : !phobos.tile<64x128xf32>, f32
  %mul2 = phobos.mul %s, %col : f32, !phobos.tile<64x1xf32>

  // CHECK: phobos.div %[[T]], %[[COL]] : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  // CHECK: phobos.div %[[TI]], %[[N]] : !phobos.tile<16xi32>, i32
  // CHECK: phobos.div %[[S]], %[[T]] : f32, !phobos.tile<64x128xf32>
  %div0 = phobos.div %t, %col : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  %div1 = phobos.div %ti, %n : !phobos.tile<16xi32>, i32
  %div2 = phobos.div %s, %t : f32, !phobos.tile<64x128xf32>

  // CHECK: phobos.rem %[[TI]], %[[TI]] : !phobos.tile<16xi32>, !phobos.tile<16xi32>
  // CHECK: phobos.rem %[[TI]], %[[N]] : !phobos.tile<16xi32>, i32
  // CHECK: phobos.rem %[[N]], %[[TI]] : i32, !phobos.tile<16xi32>
  %rem0 = phobos.rem %ti, %ti : !phobos.tile<16xi32>, !phobos.tile<16xi32>
  %rem1 = phobos.rem %ti, %n : !phobos.tile<16xi32>, i32
  %rem2 = phobos.rem %n, %ti : i32, !phobos.tile<16xi32>

  // CHECK: phobos.max %[[T]], %[[COL]] : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  // CHECK: phobos.max %[[T]], %[[S]] : !phobos.tile<64x128xf32>, f32
  // CHECK: phobos.max %[[N]], %[[TI]] : i32, !phobos.tile<16xi32>
  %max0 = phobos.max %t, %col : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  %max1 = phobos.max %t, %s : !phobos.tile<64x128xf32>, f32
  %max2 = phobos.max %n, %ti : i32, !phobos.tile<16xi32>

  // CHECK: phobos.min %[[COL]], %[[ROW]] : !phobos.tile<64x1xf32>, !phobos.tile<128xf32>
  // CHECK: phobos.min %[[TI]], %[[N]] : !phobos.tile<16xi32>, i32
  // CHECK: phobos.min %[[S]], %[[T]] : f32, !phobos.tile<64x128xf32>
  %min0 = phobos.min %col, %row : !phobos.tile<64x1xf32>, !phobos.tile<128xf32>
  %min1 = phobos.min %ti, %n : !phobos.tile<16xi32>, i32
  %min2 = phobos.min %s, %t : f32, !phobos.tile<64x128xf32>

  // CHECK: %[[M:.*]] = phobos.fill %[[B]] : !phobos.tile<64x128xi1>
  // CHECK: %[[MCOL:.*]] = phobos.fill %[[B]] : !phobos.tile<64x1xi1>
  %m = phobos.fill %b : !phobos.tile<64x128xi1>
  %mcol = phobos.fill %b : !phobos.tile<64x1xi1>
  // CHECK: phobos.and %[[M]], %[[M]] : !phobos.tile<64x128xi1>, !phobos.tile<64x128xi1>
  // CHECK: phobos.and %[[M]], %[[B]] : !phobos.tile<64x128xi1>, i1
  // CHECK: phobos.and %[[B]], %[[MCOL]] : i1, !phobos.tile<64x1xi1>
  // CHECK: phobos.and %[[MCOL]], %[[M]] : !phobos.tile<64x1xi1>, !phobos.tile<64x128xi1>
  %and0 = phobos.and %m, %m : !phobos.tile<64x128xi1>, !phobos.tile<64x128xi1>
  %and1 = phobos.and %m, %b : !phobos.tile<64x128xi1>, i1
  %and2 = phobos.and %b, %mcol : i1, !phobos.tile<64x1xi1>
  %and3 = phobos.and %mcol, %m : !phobos.tile<64x1xi1>, !phobos.tile<64x128xi1>
  // CHECK: phobos.or %[[M]], %[[MCOL]] : !phobos.tile<64x128xi1>, !phobos.tile<64x1xi1>
  // CHECK: phobos.or %[[M]], %[[B]] : !phobos.tile<64x128xi1>, i1
  // CHECK: phobos.or %[[B]], %[[M]] : i1, !phobos.tile<64x128xi1>
  %or0 = phobos.or %m, %mcol : !phobos.tile<64x128xi1>, !phobos.tile<64x1xi1>
  %or1 = phobos.or %m, %b : !phobos.tile<64x128xi1>, i1
  %or2 = phobos.or %b, %m : i1, !phobos.tile<64x128xi1>
  phobos.return
}

// The result of a broadcasting op is inferred: check it through its uses.
// CHECK-LABEL: phobos.kernel @binary_result_types
phobos.kernel @binary_result_types(%C: !phobos.tensor<?x?xf32>, %s: f32) {
  %c0 = arith.constant 0 : i32
  %col = phobos.fill %s : !phobos.tile<64x1xf32>
  %row = phobos.fill %s : !phobos.tile<128xf32>
  // CHECK: %[[SUM:.*]] = phobos.add
  // CHECK: phobos.store %[[SUM]], %{{.*}} : !phobos.tile<64x128xf32>, !phobos.tensor<?x?xf32>
  %sum = phobos.add %col, %row : !phobos.tile<64x1xf32>, !phobos.tile<128xf32>
  phobos.store %sum, %C[%c0, %c0] : !phobos.tile<64x128xf32>, !phobos.tensor<?x?xf32>
  // CHECK: %[[LT:.*]] = phobos.cmp lt
  // CHECK: phobos.select %[[LT]], %{{.*}}, %{{.*}} : !phobos.tile<64x128xi1>, f32, !phobos.tile<64x1xf32>
  %lt = phobos.cmp lt, %row, %col : !phobos.tile<128xf32>, !phobos.tile<64x1xf32>
  %sel = phobos.select %lt, %s, %col : !phobos.tile<64x128xi1>, f32, !phobos.tile<64x1xf32>
  // CHECK: phobos.store %{{.*}} : !phobos.tile<64x128xf32>, !phobos.tensor<?x?xf32>
  phobos.store %sel, %C[%c0, %c0] : !phobos.tile<64x128xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// Comparison and selection
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @compare_select
// CHECK-SAME: (%[[S:[^:]*]]: f32, %[[N:[^:]*]]: i32, %[[B:[^:]*]]: i1)
phobos.kernel @compare_select(%s: f32, %n: i32, %b: i1) {
  // CHECK: %[[COLS:.*]] = phobos.arange : !phobos.tile<128xi32>
  // CHECK: %[[X:.*]] = phobos.fill %[[S]] : !phobos.tile<64x128xf32>
  // CHECK: %[[XC:.*]] = phobos.fill %[[S]] : !phobos.tile<64x1xf32>
  %cols = phobos.arange : !phobos.tile<128xi32>
  %x = phobos.fill %s : !phobos.tile<64x128xf32>
  %xc = phobos.fill %s : !phobos.tile<64x1xf32>

  // CHECK: phobos.cmp eq, %[[X]], %[[X]] : !phobos.tile<64x128xf32>, !phobos.tile<64x128xf32>
  // CHECK: phobos.cmp ne, %[[X]], %[[S]] : !phobos.tile<64x128xf32>, f32
  // CHECK: %[[LT:.*]] = phobos.cmp lt, %[[COLS]], %[[N]] : !phobos.tile<128xi32>, i32
  // CHECK: phobos.cmp le, %[[N]], %[[COLS]] : i32, !phobos.tile<128xi32>
  // CHECK: phobos.cmp gt, %[[X]], %[[XC]] : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  // CHECK: phobos.cmp ge, %[[XC]], %[[X]] : !phobos.tile<64x1xf32>, !phobos.tile<64x128xf32>
  %eq = phobos.cmp eq, %x, %x : !phobos.tile<64x128xf32>, !phobos.tile<64x128xf32>
  %ne = phobos.cmp ne, %x, %s : !phobos.tile<64x128xf32>, f32
  %lt = phobos.cmp lt, %cols, %n : !phobos.tile<128xi32>, i32
  %le = phobos.cmp le, %n, %cols : i32, !phobos.tile<128xi32>
  %gt = phobos.cmp gt, %x, %xc : !phobos.tile<64x128xf32>, !phobos.tile<64x1xf32>
  %ge = phobos.cmp ge, %xc, %x : !phobos.tile<64x1xf32>, !phobos.tile<64x128xf32>
  // CHECK: %[[MB:.*]] = phobos.fill %[[B]] : !phobos.tile<8xi1>
  // CHECK: phobos.cmp eq, %[[MB]], %[[B]] : !phobos.tile<8xi1>, i1
  %mb = phobos.fill %b : !phobos.tile<8xi1>
  %eqb = phobos.cmp eq, %mb, %b : !phobos.tile<8xi1>, i1

  // CHECK: phobos.select %[[LT]], %[[X]], %[[S]] : !phobos.tile<128xi1>, !phobos.tile<64x128xf32>, f32
  // CHECK: phobos.select %[[LT]], %[[S]], %[[XC]] : !phobos.tile<128xi1>, f32, !phobos.tile<64x1xf32>
  // CHECK: phobos.select %[[B]], %[[X]], %[[S]] : i1, !phobos.tile<64x128xf32>, f32
  // CHECK: phobos.select %[[B]], %[[XC]], %[[X]] : i1, !phobos.tile<64x1xf32>, !phobos.tile<64x128xf32>
  %sel0 = phobos.select %lt, %x, %s : !phobos.tile<128xi1>, !phobos.tile<64x128xf32>, f32
  %sel1 = phobos.select %lt, %s, %xc : !phobos.tile<128xi1>, f32, !phobos.tile<64x1xf32>
  %sel2 = phobos.select %b, %x, %s : i1, !phobos.tile<64x128xf32>, f32
  %sel3 = phobos.select %b, %xc, %x : i1, !phobos.tile<64x1xf32>, !phobos.tile<64x128xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// Structured tile ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @structured
// CHECK-SAME: (%[[S:[^:]*]]: f32, %[[H:[^:]*]]: f16, %[[D:[^:]*]]: f64, %[[N:[^:]*]]: i32)
phobos.kernel @structured(%s: f32, %h: f16, %d: f64, %n: i32) {
  // CHECK: %[[A:.*]] = phobos.fill %[[S]] : !phobos.tile<64x16xf32>
  // CHECK: %[[B:.*]] = phobos.fill %[[S]] : !phobos.tile<16x32xf32>
  // CHECK: %[[BT:.*]] = phobos.fill %[[S]] : !phobos.tile<32x16xf32>
  // CHECK: %[[ACC:.*]] = phobos.fill %[[S]] : !phobos.tile<64x32xf32>
  %a = phobos.fill %s : !phobos.tile<64x16xf32>
  %b = phobos.fill %s : !phobos.tile<16x32xf32>
  %bt = phobos.fill %s : !phobos.tile<32x16xf32>
  %acc = phobos.fill %s : !phobos.tile<64x32xf32>

  // CHECK: phobos.dot %[[A]], %[[B]] : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %d0 = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  // CHECK: phobos.dot %[[A]], %[[B]], %[[ACC]] : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
  %d1 = phobos.dot %a, %b, %acc : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>,
      !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
  // CHECK: phobos.dot %[[A]], %[[BT]] transpose_b : !phobos.tile<64x16xf32>, !phobos.tile<32x16xf32> -> !phobos.tile<64x32xf32>
  %d2 = phobos.dot %a, %bt transpose_b : !phobos.tile<64x16xf32>, !phobos.tile<32x16xf32> -> !phobos.tile<64x32xf32>
  // The default precision (ieee) is elided.
  // CHECK: phobos.dot %[[A]], %[[B]] : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %d3 = phobos.dot %a, %b precision(ieee) : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  // CHECK: phobos.dot %[[A]], %[[B]] precision(tf32) : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %d4 = phobos.dot %a, %b precision(tf32) : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  // CHECK: phobos.dot %[[A]], %[[B]] precision(bf16) : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  %d5 = phobos.dot %a, %b precision(bf16) : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x32xf32>
  // CHECK: phobos.dot %[[A]], %[[BT]], %[[ACC]] precision(f16) transpose_b : !phobos.tile<64x16xf32>, !phobos.tile<32x16xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
  %d6 = phobos.dot %a, %bt, %acc precision(f16) transpose_b
      : !phobos.tile<64x16xf32>, !phobos.tile<32x16xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
  // A wgmma computing the transpose, left in flight, and the wait that
  // retires it while holding registers it reads.
  // CHECK: %[[D7:.*]] = phobos.dot %[[A]], %[[B]], %[[ACC]] precision(tf32) kind(wgmma) swap_ab {in_flight = 1 : i32} : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
  %d7 = phobos.dot %a, %b, %acc precision(tf32) kind(wgmma) swap_ab {in_flight = 1 : i32}
      : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32>, !phobos.tile<64x32xf32> -> !phobos.tile<64x32xf32>
  // CHECK: phobos.wgmma_wait %[[D7]] holding %[[B]] : !phobos.tile<16x32xf32> {pending = 0 : i32} : !phobos.tile<64x32xf32>
  %w7 = phobos.wgmma_wait %d7 holding %b : !phobos.tile<16x32xf32> {pending = 0 : i32} : !phobos.tile<64x32xf32>
  // CHECK: phobos.wgmma_wait %[[D7]] {pending = 1 : i32} : !phobos.tile<64x32xf32>
  %w8 = phobos.wgmma_wait %d7 {pending = 1 : i32} : !phobos.tile<64x32xf32>

  // f16 and bf16 operands accumulate in f32, f64 operands in f64.
  // CHECK: %[[Q:.*]] = phobos.fill %[[H]] : !phobos.tile<64x64xf16>
  // CHECK: %[[K:.*]] = phobos.fill %[[H]] : !phobos.tile<32x64xf16>
  // CHECK: phobos.dot %[[Q]], %[[K]] transpose_b : !phobos.tile<64x64xf16>, !phobos.tile<32x64xf16> -> !phobos.tile<64x32xf32>
  %q = phobos.fill %h : !phobos.tile<64x64xf16>
  %k = phobos.fill %h : !phobos.tile<32x64xf16>
  %qk = phobos.dot %q, %k {transpose_b} : !phobos.tile<64x64xf16>, !phobos.tile<32x64xf16> -> !phobos.tile<64x32xf32>
  // CHECK: %[[QB:.*]] = phobos.cast %[[Q]] : !phobos.tile<64x64xf16> to !phobos.tile<64x64xbf16>
  // CHECK: phobos.dot %[[QB]], %[[QB]] : !phobos.tile<64x64xbf16>, !phobos.tile<64x64xbf16> -> !phobos.tile<64x64xf32>
  %qb = phobos.cast %q : !phobos.tile<64x64xf16> to !phobos.tile<64x64xbf16>
  %qq = phobos.dot %qb, %qb : !phobos.tile<64x64xbf16>, !phobos.tile<64x64xbf16> -> !phobos.tile<64x64xf32>
  // CHECK: %[[E:.*]] = phobos.fill %[[D]] : !phobos.tile<8x8xf64>
  // CHECK: phobos.dot %[[E]], %[[E]], %[[E]] : !phobos.tile<8x8xf64>, !phobos.tile<8x8xf64>, !phobos.tile<8x8xf64> -> !phobos.tile<8x8xf64>
  %e = phobos.fill %d : !phobos.tile<8x8xf64>
  %ee = phobos.dot %e, %e, %e : !phobos.tile<8x8xf64>, !phobos.tile<8x8xf64>, !phobos.tile<8x8xf64> -> !phobos.tile<8x8xf64>

  // CHECK: phobos.reduce sum %[[ACC]] along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
  // CHECK: phobos.reduce max %[[ACC]] along 0 : !phobos.tile<64x32xf32> -> !phobos.tile<1x32xf32>
  // CHECK: %[[TI:.*]] = phobos.fill %[[N]] : !phobos.tile<4x8x16xi32>
  // CHECK: phobos.reduce min %[[TI]] along 2 : !phobos.tile<4x8x16xi32> -> !phobos.tile<4x8x1xi32>
  %rs = phobos.reduce sum %acc along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
  %rm = phobos.reduce max %acc along 0 : !phobos.tile<64x32xf32> -> !phobos.tile<1x32xf32>
  %ti = phobos.fill %n : !phobos.tile<4x8x16xi32>
  %rn = phobos.reduce min %ti along 2 : !phobos.tile<4x8x16xi32> -> !phobos.tile<4x8x1xi32>

  // CHECK: phobos.cumsum %[[ACC]] along 0 : !phobos.tile<64x32xf32>
  // CHECK: phobos.cumsum %[[TI]] along 2 : !phobos.tile<4x8x16xi32>
  %cs = phobos.cumsum %acc along 0 : !phobos.tile<64x32xf32>
  %ci = phobos.cumsum %ti along 2 : !phobos.tile<4x8x16xi32>
  // CHECK: phobos.tril %[[ACC]] : !phobos.tile<64x32xf32>
  %tl = phobos.tril %acc : !phobos.tile<64x32xf32>
  // CHECK: phobos.transpose %[[BT]] : !phobos.tile<32x16xf32> -> !phobos.tile<16x32xf32>
  %tr = phobos.transpose %bt : !phobos.tile<32x16xf32> -> !phobos.tile<16x32xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// Kernel attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @empty()
// CHECK-NEXT: phobos.return
phobos.kernel @empty() {
  phobos.return
}

// CHECK-LABEL: phobos.kernel @matmul
// CHECK-SAME: (%{{[^:]*}}: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
// CHECK-SAME: %{{[^:]*}}: !phobos.tensor<?x?xf32> {phobos.dims = ["K", "N"]},
// CHECK-SAME: %{{[^:]*}}: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "N"]},
// CHECK-SAME: %{{[^:]*}}: f32)
// CHECK-SAME: attributes {
// CHECK-SAME: aligned = {K = 16 : i64, M = 64 : i64}
// CHECK-SAME: autotune = [#phobos.tune_dim<"BM", [32, 64, 128]>, #phobos.tune_dim<"BK", [16]>, #phobos.tune_dim<"CL", [1, 2]>]
// CHECK-SAME: cluster = [#phobos.tune_dim<"CL", [1, 2]>]
// CHECK-SAME: max_regs = 128 : i32
// CHECK-SAME: max_threads = 256 : i32
// CHECK-SAME: min_blocks = 2 : i32
// CHECK-SAME: pipeline
// CHECK-SAME: tensorcore = "tf32"
// CHECK-SAME: unknown_attributes = ["fast_math", "noinline"]
// CHECK-SAME: variant = {BK = 16 : i64, BM = 64 : i64, CL = 2 : i64}
// CHECK-NEXT: phobos.return
phobos.kernel @matmul(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
                      %B: !phobos.tensor<?x?xf32> {phobos.dims = ["K", "N"]},
                      %C: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "N"]},
                      %alpha: f32)
    attributes {
      autotune = [#phobos.tune_dim<"BM", [32, 64, 128]>,
                  #phobos.tune_dim<"BK", [16]>,
                  #phobos.tune_dim<"CL", [1, 2]>],
      cluster = [#phobos.tune_dim<"CL", [1, 2]>],
      variant = {BM = 64 : i64, BK = 16 : i64, CL = 2 : i64},
      max_threads = 256 : i32,
      min_blocks = 2 : i32,
      max_regs = 128 : i32,
      pipeline,
      tensorcore = "tf32",
      aligned = {M = 64 : i64, K = 16 : i64},
      unknown_attributes = ["fast_math", "noinline"]
    } {
  phobos.return
}

// Every scalar argument type; a discardable attribute survives.
// CHECK-LABEL: phobos.kernel @scalars
// CHECK-SAME: (%{{.*}}: f16, %{{.*}}: bf16, %{{.*}}: f32, %{{.*}}: f64, %{{.*}}: i1, %{{.*}}: i32, %{{.*}}: i64)
// CHECK-SAME: attributes {
// CHECK-SAME: min_blocks = 0 : i32
// CHECK-SAME: some.note = "kept"
phobos.kernel @scalars(%a: f16, %b: bf16, %c: f32, %d: f64, %e: i1, %f: i32,
                       %g: i64) attributes {min_blocks = 0 : i32, some.note = "kept"} {
  phobos.return
}

//===----------------------------------------------------------------------===//
// Tile types with an encoding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: phobos.kernel @encoded
// CHECK-SAME: (%[[T:[^:]*]]: !phobos.tensor<?x?xf32>)
phobos.kernel @encoded(%T: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  // CHECK: %[[L:.*]] = phobos.load %[[T]]{{.*}} -> !phobos.tile<4x4xf32, #phobos.mma<warpsPerCTA = [1, 1]>>
  %l = phobos.load %T[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<4x4xf32, #phobos.mma<warpsPerCTA = [1, 1]>>
  // CHECK: %[[E:.*]] = phobos.exp %[[L]] : !phobos.tile<4x4xf32, #phobos.mma<warpsPerCTA = [1, 1]>>
  %e = phobos.exp %l : !phobos.tile<4x4xf32, #phobos.mma<warpsPerCTA = [1, 1]>>
  // CHECK: %[[C:.*]] = phobos.cast %[[E]] : !phobos.tile<4x4xf32, #phobos.mma<warpsPerCTA = [1, 1]>> to !phobos.tile<4x4xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>>
  %c = phobos.cast %e : !phobos.tile<4x4xf32, #phobos.mma<warpsPerCTA = [1, 1]>> to !phobos.tile<4x4xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>>
  // CHECK: %[[R:.*]] = phobos.reshape %[[C]] : !phobos.tile<4x4xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>> -> !phobos.tile<16xf32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>>
  %r = phobos.reshape %c : !phobos.tile<4x4xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>> -> !phobos.tile<16xf32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>>
  // CHECK: phobos.store %[[R]], %[[T]]{{.*}} : !phobos.tile<16xf32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>>, !phobos.tensor<?x?xf32>
  phobos.store %r, %T[%c0, %c0] {point_axes = array<i64: 0>} : !phobos.tile<16xf32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>>, !phobos.tensor<?x?xf32>
  phobos.return
}

// Other ops work in any region, e.g. a func.func.
// CHECK-LABEL: func.func @in_func
// CHECK-SAME: (%[[X:.*]]: !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>>) -> !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>>
// CHECK: %[[N:.*]] = phobos.neg %[[X]] : !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>>
// CHECK: return %[[N]] : !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>>
func.func @in_func(%x: !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>>) -> !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>> {
  %n = phobos.neg %x : !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>>
  return %n : !phobos.tile<8x8xf16, #phobos.mma<warpsPerCTA = [1, 1]>>
}

// A local_store writes a tile into a slot of a staged buffer.
// CHECK-LABEL: func.func @local_store
// CHECK: %[[S:.*]] = phobos.buffer_slot %{{.*}}[%{{.*}}] lag 2
// CHECK: phobos.local_store %{{.*}} into %[[S]] : !phobos.tile<32x64xf32>, !phobos.smem<32x64xf32, #phobos.shared<order = [0, 1], padding = 0>>
func.func @local_store(%t: !phobos.tile<32x64xf32>, %i: i32) {
  %buf = phobos.local_buffer : !phobos.smem<3x32x64xf32, #phobos.shared<order = [0, 1], padding = 0>>
  %s = phobos.buffer_slot %buf[%i] lag 2 : !phobos.smem<3x32x64xf32, #phobos.shared<order = [0, 1], padding = 0>> -> !phobos.smem<32x64xf32, #phobos.shared<order = [0, 1], padding = 0>>
  phobos.local_store %t into %s : !phobos.tile<32x64xf32>, !phobos.smem<32x64xf32, #phobos.shared<order = [0, 1], padding = 0>>
  return
}
