// Integer + - * / % tmax tmin on tiles and scalars: / truncates toward zero
// and % has the sign of the dividend (C, not Python); i32 wraps on overflow.
// RUN: phobos-run %s --interpret --scalar n=-7 --scalar d=2 --print | FileCheck %s

kernel int_arith(Add: tensor<i32>[8], Sub: tensor<i32>[8], Mul: tensor<i32>[8],
                 Div: tensor<i32>[8], Rem: tensor<i32>[8], DivNeg: tensor<i32>[8],
                 RemNeg: tensor<i32>[8], Max: tensor<i32>[8], Min: tensor<i32>[8],
                 Wrap: tensor<i32>[2], Wide: tensor<i64>[2], S: tensor<i32>[10],
                 n: i32, d: i32) {
    let a = arange(8) - 4                      // [-4, -3, -2, -1, 0, 1, 2, 3]
    let b = arange(8) * 2 - 5                  // [-5, -3, -1, 1, 3, 5, 7, 9]
    Add[0 :+ 8] = a + b
    Sub[0 :+ 8] = a - b
    Mul[0 :+ 8] = a * b
    Div[0 :+ 8] = a / 3
    Rem[0 :+ 8] = a % 3
    DivNeg[0 :+ 8] = a / -3
    RemNeg[0 :+ 8] = a % -3
    Max[0 :+ 8] = tmax(a, b)
    Min[0 :+ 8] = tmin(a, 0)
    Wrap[0 :+ 2] = arange(2) + 2147483647
    // i32 + i64 is i64: no wrap at 2^31.
    let big: i64 = 2147483647
    Wide[0 :+ 2] = arange(2) + big
    // Scalars (arith ops), from launch-time values so nothing is folded.
    S[0] = n / d                               // -7 / 2 = -3
    S[1] = n % d                               // -7 % 2 = -1
    S[2] = -n / -d                             // 7 / -2 = -3
    S[3] = -n % -d                             // 7 % -2 = 1
    S[4] = n + d
    S[5] = n - d
    S[6] = n * d
    S[7] = tmax(n, d)
    S[8] = tmin(n, d)
    S[9] = 2147483647 + -n                     // wraps
}

// CHECK: Add = [-9, -6, -3, 0, 3, 6, 9, 12]
// CHECK-NEXT: Sub = [1, 0, -1, -2, -3, -4, -5, -6]
// CHECK-NEXT: Mul = [20, 9, 2, -1, 0, 5, 14, 27]
// CHECK-NEXT: Div = [-1, -1, 0, 0, 0, 0, 0, 1]
// CHECK-NEXT: Rem = [-1, 0, -2, -1, 0, 1, 2, 0]
// CHECK-NEXT: DivNeg = [1, 1, 0, 0, 0, 0, 0, -1]
// CHECK-NEXT: RemNeg = [-1, 0, -2, -1, 0, 1, 2, 0]
// CHECK-NEXT: Max = [-4, -3, -1, 1, 3, 5, 7, 9]
// CHECK-NEXT: Min = [-4, -3, -2, -1, 0, 0, 0, 0]
// CHECK-NEXT: Wrap = [2147483647, -2147483648]
// CHECK-NEXT: Wide = [2147483647, 2147483648]
// CHECK-NEXT: S = [-3, -1, -3, 1, -5, -9, -14, 2, -7, -2147483642]
