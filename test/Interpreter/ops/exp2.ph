// exp2 and log2 on tiles (phobos.exp2, phobos.log2) and scalars (math.exp2,
// math.log2), rounded to the element type. exp2 flushes results below
// 2^-126 to 0, as the GPU's ex2.approx.ftz and the interpreter's exp do
// (docs/language.md, section 8).
// RUN: phobos-run %s --interpret --init X=iota --scalar half=0.5 --print | FileCheck %s

kernel exp2_values(X: tensor<f32>[5], E: tensor<f32>[5], L: tensor<f32>[4], H: tensor<f16>[2], S: tensor<f32>[3], half: f32) {
    let x = X[0 :+ 5]                          // [0, 1, 2, 3, 4]
    E[0 :+ 5] = exp2(x * 2.0 - 3.0)            // 2^-3 ... 2^5
    L[0 :+ 4] = log2(exp2(X[0 :+ 4] * 10.0))   // 0, 10, 20, 30: exact
    H[0 :+ 2] = exp2(f16(X[0 :+ 2] + 0.5))     // f16 2^0.5, 2^1.5
    S[0] = exp2(half)
    S[1] = log2(half)
    S[2] = exp2(half * -260.0)                 // 2^-130: flushed
}

// CHECK: E = [0.125, 0.5, 2, 8, 32]
// CHECK-NEXT: L = [0, 10, 20, 30]
// CHECK-NEXT: H = [1.41{{[0-9]*}}, 2.82{{[0-9]*}}]
// CHECK-NEXT: S = [1.41421, -1, 0]
