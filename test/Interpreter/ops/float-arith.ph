// Float + - * / and unary - on tiles and scalars; tmax/tmin propagate NaN
// (on either side) and order -0 below +0; every f32 op rounds to f32 (so
// 0.1 + 0.2 - 0.3 is 0 in f32 but not in f64).
// RUN: phobos-run %s --interpret --init X=iota --scalar z=0 --scalar one=1 --print | FileCheck %s

kernel float_arith(X: tensor<f32>[4], Add: tensor<f32>[4], Sub: tensor<f32>[4],
                   Mul: tensor<f32>[4], Div: tensor<f32>[4], Neg: tensor<f32>[4],
                   Max: tensor<f32>[4], Min: tensor<f32>[4], Nan: tensor<f32>[4],
                   MaxNan: tensor<f32>[4], MinNan: tensor<f32>[4], NanMax: tensor<f32>[4],
                   Zeros: tensor<f32>[2], Round32: tensor<f32>[4], Round64: tensor<f64>[1],
                   S: tensor<f32>[9], z: f32, one: f32) {
    let x = X[0 :+ 4]                          // [0, 1, 2, 3]
    let a = x - 1.5                            // [-1.5, -0.5, 0.5, 1.5]
    let b = x * 0.5 + 0.25                     // [0.25, 0.75, 1.25, 1.75]
    Add[0 :+ 4] = a + b
    Sub[0 :+ 4] = a - b
    Mul[0 :+ 4] = a * b
    Div[0 :+ 4] = a / b
    Neg[0 :+ 4] = -a
    Max[0 :+ 4] = tmax(a, 0.0)
    Min[0 :+ 4] = tmin(a, 0.0)
    // NaN in the last two lanes: 0 / 0.
    let q = where(x >= 2.0, (x - x) / (x - x), x)
    Nan[0 :+ 4] = q + 1.0
    MaxNan[0 :+ 4] = tmax(q, 1.0)
    MinNan[0 :+ 4] = tmin(q, 1.0)
    NanMax[0 :+ 4] = tmax(1.0, q)
    // max(-0, +0) is +0 and min is -0, whatever the order.
    Zeros[0] = tmax(-z, z)
    Zeros[1] = tmin(z, -z)
    let p = b * 0.0 + 0.1
    Round32[0 :+ 4] = p + 0.2 - 0.3
    Round64[0] = f64(0.1) + f64(0.2) - f64(0.3)
    // Scalars (arith ops).
    let nan = z / z
    S[0] = one + 0.5
    S[1] = one - 2.5
    S[2] = one * 3.0
    S[3] = one / 4.0
    S[4] = -one
    S[5] = tmax(nan, one)
    S[6] = tmin(one, nan)
    S[7] = tmax(one, 2.0)
    S[8] = one / z
}

// CHECK: Add = [-1.25, 0.25, 1.75, 3.25]
// CHECK-NEXT: Sub = [-1.75, -1.25, -0.75, -0.25]
// CHECK-NEXT: Mul = [-0.375, -0.375, 0.625, 2.625]
// CHECK-NEXT: Div = [-6, -0.666667, 0.4, 0.857143]
// CHECK-NEXT: Neg = [1.5, 0.5, -0.5, -1.5]
// CHECK-NEXT: Max = [0, 0, 0.5, 1.5]
// CHECK-NEXT: Min = [-1.5, -0.5, 0, 0]
// (0 / 0 is a NaN whose sign the host picks.)
// CHECK-NEXT: Nan = [1, 2, {{-?}}nan, {{-?}}nan]
// CHECK-NEXT: MaxNan = [1, 1, {{-?}}nan, {{-?}}nan]
// CHECK-NEXT: MinNan = [0, 1, {{-?}}nan, {{-?}}nan]
// CHECK-NEXT: NanMax = [1, 1, {{-?}}nan, {{-?}}nan]
// CHECK-NEXT: Zeros = [0, -0]
// CHECK-NEXT: Round32 = [0, 0, 0, 0]
// CHECK-NEXT: Round64 = [-7.45058e-09]
// CHECK-NEXT: S = [1.5, -1.5, 3, 0.25, -1, {{-?}}nan, {{-?}}nan, 2, inf]
