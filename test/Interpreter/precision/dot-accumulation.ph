// dot accumulates in f32 as an FMA chain over k = 0, 1, ..., K-1: each
// product is exact and each step rounds once to f32 (the order on the GPU
// may differ; the interpreter's is fixed, so these values are too).
// RUN: phobos-run %s --interpret --init X=iota --print | FileCheck %s

kernel dot_accumulation(X: tensor<f32>[5], Chain: tensor<f32>[1, 1], Fma: tensor<f32>[1, 1],
                        Wide: tensor<f64>[1, 1], Half: tensor<f32>[1, 1], HalfSum: tensor<f16>[1, 1]) {
    let k = arange(5)
    let zero = X[0 :+ 5] * 0.0
    let ones = reshape(zero + 1.0, 5, 1)
    // 1 + 4 * 2^-24 exactly is 1 + 2^-22, an f32; but the chain adds 2^-24
    // to 1 four times and each step rounds back to 1 (a tie, to even).
    let e = where(k == 0, zero + 1.0, zero + 5.9604644775390625e-8)
    Chain[0 :+ 1, 0 :+ 1] = dot(reshape(e, 1, 5), ones) - 1.0
    // In f64 the same dot is exact.
    Wide[0 :+ 1, 0 :+ 1] = dot(f64(reshape(e, 1, 5)), f64(ones)) - f64(1.0)
    // [1, 1 + 2^-12] . [-1, 1 + 2^-12]: -1, then fma(1 + 2^-12, 1 + 2^-12, -1)
    // = 2^-11 + 2^-24 with one rounding (exact here); rounding the product
    // first (to 1 + 2^-11) would give 2^-11 = 0.000488281.
    let a = where(k == 0, zero + 1.0, zero + 1.000244140625)
    let b = where(k == 0, zero - 1.0, zero + 1.000244140625)
    let two = k < 2
    Fma[0 :+ 1, 0 :+ 1] = dot(reshape(where(two, a, 0.0), 1, 5), reshape(where(two, b, 0.0), 5, 1))
    // f16 operands still accumulate in f32: 2048 + 1 + 1 + 1 + 0 = 2051,
    // where an f16 sum would stay at 2048.
    let h = f16(where(k == 0, zero + 2048.0, where(k == 4, zero, zero + 1.0)))
    Half[0 :+ 1, 0 :+ 1] = dot(reshape(h, 1, 5), f16(ones))
    // ...and the f32 result stored into f16 rounds once: 2051 -> 2052.
    HalfSum[0 :+ 1, 0 :+ 1] = dot(reshape(h, 1, 5), f16(ones))
}

// CHECK: Chain = [0]
// CHECK-NEXT: Fma = [0.000488341]
// CHECK-NEXT: Wide = [2.38419e-07]
// CHECK-NEXT: Half = [2051]
// CHECK-NEXT: HalfSum = [2052]
