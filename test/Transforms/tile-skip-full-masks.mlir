// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-skip-full-masks))' --split-input-file | FileCheck %s

// A causal mask: the keys k + arange(64) against the rows row + arange(128)
// (a column). The whole tile holds when k + 63 <= row, that is k < row - 62;
// the `where` then is its first value, and the positions, the compare and
// the select run only in the other branch.

// CHECK-LABEL: phobos.kernel @causal
// CHECK: %[[ROW:.*]] = arith.muli
// CHECK: %[[C:.*]] = arith.constant -62 : i32
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[ROW]], %[[C]] : i32
// CHECK-NEXT: scf.for %[[K:[^ ]*]] =
// CHECK-NEXT: phobos.load
// CHECK-NEXT: %[[DOT:.*]] = phobos.dot
// CHECK-NEXT: %[[H:.*]] = arith.cmpi slt, %[[K]], %[[T]] : i32
// CHECK-NEXT: %[[S:.*]] = scf.if %[[H]] -> (!phobos.tile<128x64xf32>) {
// CHECK-NEXT: scf.yield %[[DOT]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[COLS:.*]] = phobos.add %[[K]]
// CHECK-NEXT: %[[M:.*]] = phobos.cmp le, %[[COLS]]
// CHECK-NEXT: %[[SEL:.*]] = phobos.select %[[M]], %[[DOT]]
// CHECK-NEXT: scf.yield %[[SEL]]
// CHECK-NEXT: }
// CHECK-NEXT: phobos.reduce max %[[S]]
phobos.kernel @causal(%Q: !phobos.tensor<?x64xf16> {phobos.dims = ["N", "D"]}, %K: !phobos.tensor<?x64xf16> {phobos.dims = ["N", "D"]}, %O: !phobos.tensor<?xf32> {phobos.dims = ["N"]}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %neg = arith.constant -1.0e30 : f32
  %b = phobos.block_id x
  %row = arith.muli %b, %c128 : i32
  %q = phobos.load %Q[%row, %c0] : !phobos.tensor<?x64xf16> -> !phobos.tile<128x64xf16>
  %ar = phobos.arange : !phobos.tile<128xi32>
  %r = phobos.add %row, %ar : i32, !phobos.tile<128xi32>
  %rows = phobos.reshape %r : !phobos.tile<128xi32> -> !phobos.tile<128x1xi32>
  %init = phobos.fill %neg : !phobos.tile<128x1xf32>
  %end = arith.addi %row, %c128 : i32
  %ac = phobos.arange : !phobos.tile<64xi32>
  %m = scf.for %k = %c0 to %end step %c64 iter_args(%acc = %init) -> (!phobos.tile<128x1xf32>) : i32 {
    %cols = phobos.add %k, %ac : i32, !phobos.tile<64xi32>
    %keep = phobos.cmp le, %cols, %rows : !phobos.tile<64xi32>, !phobos.tile<128x1xi32>
    %kt = phobos.load %K[%k, %c0] : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16>
    %s = phobos.dot %q, %kt transpose_b : !phobos.tile<128x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<128x64xf32>
    %sm = phobos.select %keep, %s, %neg : !phobos.tile<128x64xi1>, !phobos.tile<128x64xf32>, f32
    %mx = phobos.reduce max %sm along 1 : !phobos.tile<128x64xf32> -> !phobos.tile<128x1xf32>
    %n = phobos.max %acc, %mx : !phobos.tile<128x1xf32>, !phobos.tile<128x1xf32>
    scf.yield %n : !phobos.tile<128x1xf32>
  }
  %flat = phobos.reshape %m : !phobos.tile<128x1xf32> -> !phobos.tile<128xf32>
  phobos.store %flat, %O[%row] : !phobos.tile<128xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// The backward's dK/dV form: the loop walks the queries (r0 + arange(32))
// and the keys are fixed (col + arange(64), a column), `cols <= rows`.
// Written as rows >= cols: it holds everywhere once r0 >= col + 63, the
// iterations after the diagonal.

// CHECK-LABEL: phobos.kernel @after_diagonal
// CHECK-DAG: %[[C63:.*]] = arith.constant 63 : i32
// CHECK-DAG: %[[COL:.*]] = arith.muli
// CHECK: %[[T:.*]] = arith.addi %[[COL]], %[[C63]] : i32
// CHECK-NEXT: scf.for %[[R0:[^ ]*]] =
// CHECK-NEXT: %[[H:.*]] = arith.cmpi sge, %[[R0]], %[[T]] : i32
// CHECK-NEXT: scf.if %[[H]] -> (!phobos.tile<64x32xf32>)
phobos.kernel @after_diagonal(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["N", "M"]}, %O: !phobos.tensor<?x?xf32> {phobos.dims = ["N", "M"]}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %b = phobos.block_id x
  %col = arith.muli %b, %c64 : i32
  %x = phobos.load %X[%col, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32>
  %ak = phobos.arange : !phobos.tile<64xi32>
  %k = phobos.add %col, %ak : i32, !phobos.tile<64xi32>
  %cols = phobos.reshape %k : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
  %aq = phobos.arange : !phobos.tile<32xi32>
  %init = phobos.fill %zero : !phobos.tile<64x32xf32>
  %sum = scf.for %r0 = %c0 to %n step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x32xf32>) : i32 {
    %rows = phobos.add %r0, %aq : i32, !phobos.tile<32xi32>
    %keep = phobos.cmp ge, %rows, %cols : !phobos.tile<32xi32>, !phobos.tile<64x1xi32>
    %p = phobos.select %keep, %x, %zero : !phobos.tile<64x32xi1>, !phobos.tile<64x32xf32>, f32
    %a = phobos.add %acc, %p : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
    scf.yield %a : !phobos.tile<64x32xf32>
  }
  phobos.store %sum, %O[%col, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Two compares joined by `and` (the backward's `cols <= rows and rows < N`
// in a loop whose lower bound is not 0, so tile-split-ragged-loops left it):
// both bounds must hold, rows + 31 < n as well as r0 >= col + 63.

// CHECK-LABEL: phobos.kernel @both
// CHECK: %[[COL:.*]] = arith.muli
// CHECK: %[[C63:.*]] = arith.constant 63 : i32
// CHECK-NEXT: %[[T1:.*]] = arith.addi %[[COL]], %[[C63]] : i32
// CHECK-NEXT: %[[CM31:.*]] = arith.constant -31 : i32
// CHECK-NEXT: %[[T2:.*]] = arith.addi %[[N:.*]], %[[CM31]] : i32
// CHECK-NEXT: scf.for %[[R0:[^ ]*]] = %[[COL]] to %[[N]]
// CHECK-NEXT: %[[H1:.*]] = arith.cmpi sge, %[[R0]], %[[T1]] : i32
// CHECK-NEXT: %[[H2:.*]] = arith.cmpi slt, %[[R0]], %[[T2]] : i32
// CHECK-NEXT: %[[H:.*]] = arith.andi %[[H1]], %[[H2]] : i1
// CHECK-NEXT: scf.if %[[H]] -> (!phobos.tile<64x32xf32>)
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: phobos.add %[[R0]]
// CHECK-NEXT: phobos.cmp ge
// CHECK-NEXT: phobos.cmp lt
// CHECK-NEXT: phobos.and
// CHECK-NEXT: phobos.select
// CHECK-NEXT: scf.yield
phobos.kernel @both(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["N", "M"]}, %O: !phobos.tensor<?x?xf32> {phobos.dims = ["N", "M"]}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %b = phobos.block_id x
  %col = arith.muli %b, %c64 : i32
  %x = phobos.load %X[%col, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32>
  %ak = phobos.arange : !phobos.tile<64xi32>
  %k = phobos.add %col, %ak : i32, !phobos.tile<64xi32>
  %cols = phobos.reshape %k : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
  %aq = phobos.arange : !phobos.tile<32xi32>
  %init = phobos.fill %zero : !phobos.tile<64x32xf32>
  %sum = scf.for %r0 = %col to %n step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x32xf32>) : i32 {
    %rows = phobos.add %r0, %aq : i32, !phobos.tile<32xi32>
    %below = phobos.cmp ge, %rows, %cols : !phobos.tile<32xi32>, !phobos.tile<64x1xi32>
    %inside = phobos.cmp lt, %rows, %n : !phobos.tile<32xi32>, i32
    %keep = phobos.and %below, %inside : !phobos.tile<64x32xi1>, !phobos.tile<32xi1>
    %p = phobos.select %keep, %x, %zero : !phobos.tile<64x32xi1>, !phobos.tile<64x32xf32>, f32
    %a = phobos.add %acc, %p : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
    scf.yield %a : !phobos.tile<64x32xf32>
  }
  phobos.store %sum, %O[%col, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Not rewritten: a compare of two blocks that both move with the loop, a
// select whose first value is narrower than its result (it would need a
// broadcast), and an equality.

// CHECK-LABEL: phobos.kernel @kept
// CHECK-NOT: scf.if
phobos.kernel @kept(%X: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %O: !phobos.tensor<?x?xf32> {phobos.dims = ["N", "M"]}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %row = phobos.block_id x
  %x = phobos.load %X[%row] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
  %a64 = phobos.arange : !phobos.tile<64xi32>
  %fixed = phobos.add %row, %a64 : i32, !phobos.tile<64xi32>
  %rows = phobos.reshape %fixed : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %sum = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %cols = phobos.add %k, %a64 : i32, !phobos.tile<64xi32>
    %both = phobos.add %k, %fixed : i32, !phobos.tile<64xi32>
    %moving = phobos.cmp le, %cols, %both : !phobos.tile<64xi32>, !phobos.tile<64xi32>
    %p1 = phobos.select %moving, %acc, %zero : !phobos.tile<64xi1>, !phobos.tile<64x64xf32>, f32
    %causal = phobos.cmp le, %cols, %rows : !phobos.tile<64xi32>, !phobos.tile<64x1xi32>
    %p2 = phobos.select %causal, %x, %zero : !phobos.tile<64x64xi1>, !phobos.tile<64xf32>, f32
    %same = phobos.cmp eq, %cols, %rows : !phobos.tile<64xi32>, !phobos.tile<64x1xi32>
    %p3 = phobos.select %same, %p1, %zero : !phobos.tile<64x64xi1>, !phobos.tile<64x64xf32>, f32
    %s = phobos.add %p2, %p3 : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
    scf.yield %s : !phobos.tile<64x64xf32>
  }
  phobos.store %sum, %O[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
