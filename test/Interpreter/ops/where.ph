// where(c, x, y): a tile condition selects per element; a scalar condition
// selects a whole operand; all three broadcast ([R, 1] / [C] conditions on an
// [R, C] result); the branches are promoted to a common type first.
// RUN: phobos-run %s --interpret --init X=iota --scalar flag=1 --scalar n=5 --print | FileCheck %s

kernel select(X: tensor<f32>[2, 3], Tile: tensor<f32>[2, 3], RowCond: tensor<f32>[2, 3],
              ColCond: tensor<f32>[2, 3], ScalarTrue: tensor<f32>[2, 3],
              ScalarFalse: tensor<f32>[2, 3], Promoted: tensor<f32>[3], Int: tensor<i32>[3],
              S: tensor<i32>[2], flag: i32, n: i32) {
    let x = X[0 :+ 2, 0 :+ 3]                  // [0, 1, 2; 3, 4, 5]
    Tile[0 :+ 2, 0 :+ 3] = where(x > 2.5, x, -x)
    let r = reshape(arange(2), 2, 1) == 1      // [2, 1]: second row
    RowCond[0 :+ 2, 0 :+ 3] = where(r, x, 9.0)
    let c = arange(3) != 1                     // [3]: first and last columns
    ColCond[0 :+ 2, 0 :+ 3] = where(c, 8.0, x)
    ScalarTrue[0 :+ 2, 0 :+ 3] = where(flag == 1, x, 0.0)
    ScalarFalse[0 :+ 2, 0 :+ 3] = where(flag == 0, x, 0.0)
    // i32 tile with an f32 scalar: f32.
    Promoted[0 :+ 3] = where(c, arange(3), 0.5)
    Int[0 :+ 3] = where(c, arange(3) * 10, -1)
    // All scalars: arith.select.
    S[0] = where(n > 3, n, -n)
    S[1] = where(n > 7, n, -n)
}

// CHECK: Tile = [-0, -1, -2; 3, 4, 5]
// CHECK-NEXT: RowCond = [9, 9, 9; 3, 4, 5]
// CHECK-NEXT: ColCond = [8, 1, 8; 8, 4, 8]
// CHECK-NEXT: ScalarTrue = [0, 1, 2; 3, 4, 5]
// CHECK-NEXT: ScalarFalse = [0, 0, 0; 0, 0, 0]
// CHECK-NEXT: Promoted = [0, 0.5, 2]
// CHECK-NEXT: Int = [0, -1, 20]
// CHECK-NEXT: S = [5, -5]
