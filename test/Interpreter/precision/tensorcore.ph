// @tensorcore rounds the f32 operands of dot to f16 (the default), tf32 or
// bf16 before multiplying, still accumulating in f32. Each kernel multiplies
// a [4, 1] column by [[1]], so the products show the rounded left operand:
//   70000:            f16 overflows (inf); tf32 keeps 10 bits (70016); bf16 7 (70144)
//   1 + 2^-11:        a tie; f16 rounds to even (1), tf32 away from zero
//                     (1 + 2^-10, cvt.rna), bf16 to 1
//   1 + 2^-9 + 2^-12: 10 bits keep 1 + 2^-9; bf16 gives 1
//   1e-6:             an f16 subnormal (17 units of 2^-24); tf32 and bf16
//                     keep f32's exponent
// f64 dots are never rounded; f16 x bf16 is promoted to f32 and then
// rounded; f16 x f16 is multiplied as it is.
// RUN: phobos-run %s --interpret --kernel ieee --init X=iota --print | FileCheck %s --check-prefix=IEEE
// RUN: phobos-run %s --interpret --kernel tc_f16 --init X=iota --print | FileCheck %s --check-prefix=F16
// RUN: phobos-run %s --interpret --kernel tc_tf32 --init X=iota --print | FileCheck %s --check-prefix=TF32
// RUN: phobos-run %s --interpret --kernel tc_bf16 --init X=iota --print | FileCheck %s --check-prefix=BF16

kernel ieee(X: tensor<f32>[4], Out: tensor<f32>[4, 1], Wide: tensor<f64>[4, 1],
    Mixed: tensor<f32>[1, 1], Half: tensor<f32>[1, 1]) {
    let k = arange(4)
    let zero = X[0 :+ 4] * 0.0
    let a = reshape(where(k == 0, zero + 70000.0, where(k == 1, zero + 1.00048828125,
            where(k == 2, zero + 1.002197265625, zero + 1.0e-6))), 4, 1)
    let one: tile<f32>[1, 1] = 1.0
    Out[0 :+ 4, 0 :+ 1] = dot(a, one)
    Wide[0 :+ 4, 0 :+ 1] = dot(f64(a), f64(one))
    // f16(1 + 2^-10) x bf16(1).
    let h: tile<f16>[1, 1] = 1.0009765625
    Mixed[0 :+ 1, 0 :+ 1] = dot(h, bf16(one))
    Half[0 :+ 1, 0 :+ 1] = dot(h, f16(one))
}

// IEEE: ieee [-] interpreter
// IEEE-NEXT: Out = [70000; 1.00049; 1.0022; 1e-06]
// IEEE-NEXT: Wide = [70000; 1.00049; 1.0022; 1e-06]
// IEEE-NEXT: Mixed = [1.00098]
// IEEE-NEXT: Half = [1.00098]

@tensorcore
kernel tc_f16(X: tensor<f32>[4], Out: tensor<f32>[4, 1], Wide: tensor<f64>[4, 1],
    Mixed: tensor<f32>[1, 1], Half: tensor<f32>[1, 1]) {
    let k = arange(4)
    let zero = X[0 :+ 4] * 0.0
    let a = reshape(where(k == 0, zero + 70000.0, where(k == 1, zero + 1.00048828125,
            where(k == 2, zero + 1.002197265625, zero + 1.0e-6))), 4, 1)
    let one: tile<f32>[1, 1] = 1.0
    Out[0 :+ 4, 0 :+ 1] = dot(a, one)
    Wide[0 :+ 4, 0 :+ 1] = dot(f64(a), f64(one))
    // f16(1 + 2^-10) x bf16(1).
    let h: tile<f16>[1, 1] = 1.0009765625
    Mixed[0 :+ 1, 0 :+ 1] = dot(h, bf16(one))
    Half[0 :+ 1, 0 :+ 1] = dot(h, f16(one))
}

// F16: tc_f16 [-] interpreter
// F16-NEXT: Out = [inf; 1; 1.00195; 1.01328e-06]
// F16-NEXT: Wide = [70000; 1.00049; 1.0022; 1e-06]
// F16-NEXT: Mixed = [1.00098]
// F16-NEXT: Half = [1.00098]

@tensorcore(tf32)
kernel tc_tf32(X: tensor<f32>[4], Out: tensor<f32>[4, 1], Wide: tensor<f64>[4, 1],
    Mixed: tensor<f32>[1, 1], Half: tensor<f32>[1, 1]) {
    let k = arange(4)
    let zero = X[0 :+ 4] * 0.0
    let a = reshape(where(k == 0, zero + 70000.0, where(k == 1, zero + 1.00048828125,
            where(k == 2, zero + 1.002197265625, zero + 1.0e-6))), 4, 1)
    let one: tile<f32>[1, 1] = 1.0
    Out[0 :+ 4, 0 :+ 1] = dot(a, one)
    Wide[0 :+ 4, 0 :+ 1] = dot(f64(a), f64(one))
    // f16(1 + 2^-10) x bf16(1).
    let h: tile<f16>[1, 1] = 1.0009765625
    Mixed[0 :+ 1, 0 :+ 1] = dot(h, bf16(one))
    Half[0 :+ 1, 0 :+ 1] = dot(h, f16(one))
}

// TF32: tc_tf32 [-] interpreter
// TF32-NEXT: Out = [70016; 1.00098; 1.00195; 1.00024e-06]
// TF32-NEXT: Wide = [70000; 1.00049; 1.0022; 1e-06]
// TF32-NEXT: Mixed = [1.00098]
// TF32-NEXT: Half = [1.00098]

@tensorcore(bf16)
kernel tc_bf16(X: tensor<f32>[4], Out: tensor<f32>[4, 1], Wide: tensor<f64>[4, 1],
    Mixed: tensor<f32>[1, 1], Half: tensor<f32>[1, 1]) {
    let k = arange(4)
    let zero = X[0 :+ 4] * 0.0
    let a = reshape(where(k == 0, zero + 70000.0, where(k == 1, zero + 1.00048828125,
            where(k == 2, zero + 1.002197265625, zero + 1.0e-6))), 4, 1)
    let one: tile<f32>[1, 1] = 1.0
    Out[0 :+ 4, 0 :+ 1] = dot(a, one)
    Wide[0 :+ 4, 0 :+ 1] = dot(f64(a), f64(one))
    // f16(1 + 2^-10) x bf16(1).
    let h: tile<f16>[1, 1] = 1.0009765625
    Mixed[0 :+ 1, 0 :+ 1] = dot(h, bf16(one))
    Half[0 :+ 1, 0 :+ 1] = dot(h, f16(one))
}

// BF16: tc_bf16 [-] interpreter
// BF16-NEXT: Out = [70144; 1; 1; 9.98378e-07]
// BF16-NEXT: Wide = [70000; 1.00049; 1.0022; 1e-06]
// BF16-NEXT: Mixed = [1]
// BF16-NEXT: Half = [1.00098]
