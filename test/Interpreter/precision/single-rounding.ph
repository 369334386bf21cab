// A conversion rounds once, from the exact source value to the target type
// (LLVM's sitofp / fptrunc, PTX cvt.rn): rounding through an intermediate
// type first (double, then f32, then bf16) goes wrong when the first rounding
// lands exactly on a tie of the second.
// RUN: phobos-run %s --interpret --scalar one=1 --scalar n=16842753 --print | FileCheck %s

kernel single_rounding(ToF32: tensor<f32>[3], ToBF16: tensor<f32>[3], F64ToBF16: tensor<f64>[2],
                       one: i64, n: i32) {
    // i64 2^60 + 2^36 + 1 is just above the tie between the f32 values 2^60 and
    // 2^60 + 2^37 (the f32 spacing there is 2^37): it rounds up. As a double
    // it would first lose the + 1 and then tie to even, 2^60. Shown minus 2^60.
    let v = 1152921504606846976 + 68719476736 + one
    ToF32[0] = f32(v) - 1152921504606846976.0
    ToF32[1 :+ 2] = f32(i64(arange(2)) + v) - 1152921504606846976.0
    // i32 16842753 = 2^24 + 2^16 + 1 is just above the tie between the bf16
    // values 2^24 and 2^24 + 2^17: up. Through f32 (16842752, a tie) it would
    // go to even, 2^24. Shown minus 2^24.
    ToBF16[0] = f32(bf16(n)) - 16777216.0
    ToBF16[1 :+ 2] = f32(bf16(arange(2) + n)) - 16777216.0
    // f64 1 + 2^-8 + 2^-30 to bf16: above the tie at 1 + 2^-8, so 1 + 2^-7;
    // through f32 (1 + 2^-8, a tie) it would be 1. Shown minus 1.
    let d = f64(1.00390625) + f64(one) / f64(1073741824)
    F64ToBF16[0] = f64(bf16(d)) - f64(1.0)
    let t: tile<f64>[1] = d
    F64ToBF16[1 :+ 1] = f64(bf16(t)) - f64(1.0)
}

// CHECK: ToF32 = [1.37439e+11, 1.37439e+11, 1.37439e+11]
// CHECK-NEXT: ToBF16 = [131072, 131072, 131072]
// CHECK-NEXT: F64ToBF16 = [0.0078125, 0.0078125]
