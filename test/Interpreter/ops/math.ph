// exp, log, sqrt, rsqrt and abs on tiles (phobos ops) and scalars (math
// ops), rounded to the element type: f16 exp(1) is 2.71875. exp results
// below 2^-126 are 0, as on the GPU (ex2.approx.ftz).
// RUN: phobos-run %s --interpret --init X=iota --scalar two=2 --print | FileCheck %s

kernel math(X: tensor<f32>[4], Exp: tensor<f32>[4], Log: tensor<f32>[4], Sqrt: tensor<f32>[4],
            Rsqrt: tensor<f32>[4], Abs: tensor<f32>[4], AbsInt: tensor<i32>[4],
            Half: tensor<f32>[2], Flush: tensor<f32>[4], S: tensor<f32>[7], SI: tensor<i32>[1], two: f32) {
    let x = X[0 :+ 4]                          // [0, 1, 2, 3]
    Exp[0 :+ 4] = exp(x - 1.0)                 // e^-1, 1, e, e^2
    Log[0 :+ 4] = log(x - 1.0)                 // NaN, -inf, 0, log 2
    Sqrt[0 :+ 4] = sqrt(x * x - 1.0)           // NaN, 0, sqrt 3, sqrt 8
    Rsqrt[0 :+ 4] = rsqrt(x * 4.0)             // inf, 0.5, 0.353553, 0.288675
    Abs[0 :+ 4] = abs(1.5 - x)
    AbsInt[0 :+ 4] = abs(arange(4) - 2147483647 - 1)   // abs(INT32_MIN) wraps
    Half[0 :+ 2] = f32(exp(f16(arange(2))))
    Flush[0 :+ 4] = exp(-87.0 - x * 0.5)       // e^-87 is normal; e^-87.5 is below 2^-126
    S[0] = exp(two)
    S[1] = log(two)
    S[2] = sqrt(two)
    S[3] = rsqrt(two)
    S[4] = abs(-two)
    S[5] = exp(-two * 100.0)
    S[6] = exp(-two * 44.0)
    SI[0] = abs(i32(-two))
}

// CHECK: Exp = [0.367879, 1, 2.71828, 7.38906]
// CHECK-NEXT: Log = [{{-?}}nan, -inf, 0, 0.693147]
// CHECK-NEXT: Sqrt = [{{-?}}nan, 0, 1.73205, 2.82843]
// CHECK-NEXT: Rsqrt = [inf, 0.5, 0.353553, 0.288675]
// CHECK-NEXT: Abs = [1.5, 0.5, 0.5, 1.5]
// CHECK-NEXT: AbsInt = [-2147483648, 2147483647, 2147483646, 2147483645]
// CHECK-NEXT: Half = [1, 2.71875]
// CHECK-NEXT: Flush = [1.64581e-38, 0, 0, 0]
// exp(-200) underflows f32 to 0; exp(-88) would be subnormal and is flushed.
// CHECK-NEXT: S = [7.38906, 0.693147, 1.41421, 0.707107, 2, 0, 0]
// CHECK-NEXT: SI = [2]
