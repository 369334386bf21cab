// cumsum: inclusive prefix sum along axis 0 (any rank); tril: zero (false)
// above the diagonal, on square and non-square tiles; transpose.
// RUN: phobos-run %s --interpret --init X=iota --print | FileCheck %s

kernel shape_ops(X: tensor<f32>[3, 4], Cum1: tensor<i32>[5], Cum2: tensor<f32>[3, 4],
                 TrilSquare: tensor<f32>[3, 3], TrilWide: tensor<i32>[2, 4],
                 TrilTall: tensor<f32>[4, 2], TrilBool: tensor<bool>[3, 3],
                 Trans: tensor<f32>[4, 3], TransInt: tensor<i32>[3, 2], HalfCum: tensor<f16>[3]) {
    let x = X[0 :+ 3, 0 :+ 4]                  // [0, 1, 2, 3; 4, 5, 6, 7; 8, 9, 10, 11]
    Cum1[0 :+ 5] = cumsum(arange(5) - 2)       // [-2, -1, 0, 1, 2] -> [-2, -3, -3, -2, 0]
    Cum2[0 :+ 3, 0 :+ 4] = cumsum(x)           // down each column
    TrilSquare[0 :+ 3, 0 :+ 3] = tril(X[0 :+ 3, 0 :+ 3] + 1.0)
    TrilWide[0 :+ 2, 0 :+ 4] = tril(reshape(arange(8), 2, 4) + 1)
    TrilTall[0 :+ 4, 0 :+ 2] = tril(transpose(X[0 :+ 2, 0 :+ 4]) + 1.0)
    let ones: tile<bool>[3, 3] = true
    TrilBool[0 :+ 3, 0 :+ 3] = tril(ones)
    Trans[0 :+ 4, 0 :+ 3] = transpose(x)
    TransInt[0 :+ 3, 0 :+ 2] = transpose(reshape(arange(6), 2, 3))
    // f16 prefix sums round each output: 2048, 2049 -> 2048, 2050.
    let h = f16(where(arange(3) == 0, 2048.0, 1.0))
    HalfCum[0 :+ 3] = cumsum(h)
}

// CHECK: Cum1 = [-2, -3, -3, -2, 0]
// CHECK-NEXT: Cum2 = [0, 1, 2, 3; 4, 6, 8, 10; 12, 15, 18, 21]
// CHECK-NEXT: TrilSquare = [1, 0, 0; 5, 6, 0; 9, 10, 11]
// CHECK-NEXT: TrilWide = [1, 0, 0, 0; 5, 6, 0, 0]
// CHECK-NEXT: TrilTall = [1, 0; 2, 6; 3, 7; 4, 8]
// CHECK-NEXT: TrilBool = [1, 0, 0; 1, 1, 0; 1, 1, 1]
// CHECK-NEXT: Trans = [0, 4, 8; 1, 5, 9; 2, 6, 10; 3, 7, 11]
// CHECK-NEXT: TransInt = [0, 3; 1, 4; 2, 5]
// CHECK-NEXT: HalfCum = [2048, 2048, 2050]
