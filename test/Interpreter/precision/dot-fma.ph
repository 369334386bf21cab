// Each step of a dot's accumulation is one fused multiply-add, rounded once
// (fma.rn.f32 / fma.rn.f64 on the GPU): acc + a * b computed exactly, then
// rounded. Computing the product or the sum in a wider type and rounding
// twice gives a different answer for these inputs.
// RUN: phobos-run %s --interpret --init X=iota --init Y=iota --print | FileCheck %s

kernel dot_fma(X: tensor<f32>[2], Y: tensor<f64>[2], F32: tensor<f32>[1, 1], F64: tensor<f64>[1, 1]) {
    let i = arange(2)
    // f32: [1, b] . [1, c] with b = 8392705 * 2^-35, c = 8384513 * 2^-35, so
    // b * c = (2^46 + 1) * 2^-70 = 2^-24 + 2^-70 exactly (8392705 * 8384513 =
    // 2^46 + 1). fma(b, c, 1) = 1 + 2^-24 + 2^-70 is just above the tie
    // between 1 and 1 + 2^-23: it rounds up. (In double the 2^-70 is lost and
    // the tie goes to even, 1.) Shown minus 1: 2^-23.
    let z = X[0 :+ 2] * 0.0
    let b = where(i == 0, z + 1.0, (z + 8392705.0) * 2.9103830456733704e-11)
    let c = where(i == 0, z + 1.0, (z + 8384513.0) * 2.9103830456733704e-11)
    F32[0 :+ 1, 0 :+ 1] = dot(reshape(b, 1, 2), reshape(c, 2, 1)) - 1.0
    // f64: [1, 1 + e] . [-1, 1 + e] with e = 2^-30: -1, then
    // fma(1 + e, 1 + e, -1) = 2e + e^2 exactly; rounding the product first
    // would lose the e^2. Shown as (dot - 2e) / e^2: 1.
    let w = Y[0 :+ 2] * 0.0
    let e = f64(1.0) / f64(1073741824)
    let p = where(i == 0, w + 1.0, w + 1.0 + e)
    let q = where(i == 0, w - 1.0, w + 1.0 + e)
    F64[0 :+ 1, 0 :+ 1] = (dot(reshape(p, 1, 2), reshape(q, 2, 1)) - e * 2.0) / (e * e)
}

// CHECK: F32 = [1.19209e-07]
// CHECK-NEXT: F64 = [1]
