// rowsum/rowmax/rowmin reduce the last axis to [R, 1], colsum/colmax/colmin
// the first to [1, C]; integer tiles reduce too; a float max/min with a NaN
// is NaN; f16 sums accumulate in f32 and round to f16 once, at the end.
// RUN: phobos-run %s --interpret --init X=iota --print | FileCheck %s

kernel reductions(X: tensor<f32>[2, 3], RowSum: tensor<f32>[2, 1], RowMax: tensor<f32>[2, 1],
                  RowMin: tensor<f32>[2, 1], ColSum: tensor<f32>[1, 3], ColMax: tensor<f32>[1, 3],
                  ColMin: tensor<f32>[1, 3], IntRow: tensor<i32>[2, 1], IntCol: tensor<i32>[1, 3],
                  NanRow: tensor<f32>[2, 1], NanCol: tensor<f32>[1, 3], HalfSum: tensor<f16>[1, 1]) {
    let x = X[0 :+ 2, 0 :+ 3] - 2.0            // [-2, -1, 0; 1, 2, 3]
    RowSum[0 :+ 2, 0 :+ 1] = rowsum(x)
    RowMax[0 :+ 2, 0 :+ 1] = rowmax(x)
    RowMin[0 :+ 2, 0 :+ 1] = rowmin(x)
    ColSum[0 :+ 1, 0 :+ 3] = colsum(x)
    ColMax[0 :+ 1, 0 :+ 3] = colmax(x)
    ColMin[0 :+ 1, 0 :+ 3] = colmin(x)
    let n = reshape(arange(6), 2, 3) * 3 - 7   // [-7, -4, -1; 2, 5, 8]
    IntRow[0 :+ 2, 0 :+ 1] = rowmax(n) + rowmin(n) * 100
    IntCol[0 :+ 1, 0 :+ 3] = colsum(n)
    // A NaN at [0, 1].
    let q = where(x == -1.0, (x - x) / (x - x), x)
    NanRow[0 :+ 2, 0 :+ 1] = rowmax(q) + rowmin(q)
    NanCol[0 :+ 1, 0 :+ 3] = colmax(q)
    // 2048 + 1 + 1 + 1 + 1 + 1 in f16: 2048 + 1 is not an f16 (steps of 2
    // above 2048), but the sum accumulates in f32, as on the GPU, and only
    // 2053 is rounded (to 2052); rounding every step would give 2048.
    let h = f16(where(reshape(arange(6), 1, 6) == 0, 2048.0, 1.0))
    HalfSum[0 :+ 1, 0 :+ 1] = rowsum(h)
}

// CHECK: RowSum = [-3; 6]
// CHECK-NEXT: RowMax = [0; 3]
// CHECK-NEXT: RowMin = [-2; 1]
// CHECK-NEXT: ColSum = [-1, 1, 3]
// CHECK-NEXT: ColMax = [1, 2, 3]
// CHECK-NEXT: ColMin = [-2, -1, 0]
// CHECK-NEXT: IntRow = [-701; 208]
// CHECK-NEXT: IntCol = [-5, 1, 7]
// CHECK-NEXT: NanRow = [{{-?}}nan; 4]
// CHECK-NEXT: NanCol = [1, {{-?}}nan, 3]
// CHECK-NEXT: HalfSum = [2052]
