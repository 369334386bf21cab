// Casts (phobos.cast on tiles, arith casts on scalars): float -> int
// truncates toward zero and saturates (NaN is 0); int -> float rounds to
// nearest even; f32 -> f16 / bf16 round to nearest even (ties, overflow,
// subnormals); integers narrow by keeping the low bits and widen by sign
// extension; bool(x) is x != 0; bool -> number is 0 or 1. (bool of NaN:
// casts-bool.ph; conversions that must round once: precision/single-rounding.ph.)
// RUN: phobos-run %s --interpret --scalar z=0 --scalar big=4294967297 --print | FileCheck %s

kernel casts(ToInt: tensor<i32>[4], Saturate: tensor<i32>[4], Saturate64: tensor<i64>[2],
             ToF32: tensor<f32>[4], ToF16: tensor<f32>[4], F16Edges: tensor<f32>[4],
             StoreF16: tensor<f16>[4], ToBF16: tensor<f32>[4], StoreBF16: tensor<bf16>[4],
             F16ToBF16: tensor<f32>[2], FloatToBool: tensor<bool>[4], IntToBool: tensor<bool>[4],
             BoolToNum: tensor<f32>[2], BoolToInt: tensor<i32>[2], Narrow: tensor<i32>[3],
             Widen: tensor<i64>[2], S: tensor<f32>[10], z: f32, big: i64) {
    let i = arange(4)
    let frac = where(i == 0, -2.7, where(i == 1, -0.5, where(i == 2, 0.5, 2.7)))
    ToInt[0 :+ 4] = i32(frac)
    let nan = (frac - frac) / (frac - frac)
    let huge = where(i == 0, 3.0e9, where(i == 1, -3.0e9, where(i == 2, 2147483520.0, nan)))
    Saturate[0 :+ 4] = i32(huge)
    // Saturated to INT64_MAX and INT64_MIN, shown as differences from
    // INT64_MAX (the second wraps): 0 and 1.
    Saturate64[0 :+ 2] = i64(where(arange(2) == 0, 1.0e19, -1.0e19)) - 9223372036854775807
    // 2^24 + [0, 1, 2, 3] in f32, minus 2^24: ties go to even.
    ToF32[0 :+ 4] = f32(i + 16777216) - 16777216.0
    // 1 + 2^-11 (a tie: down to 1), 1 + 3 * 2^-11 (a tie: up to 1 + 2^-9),
    // 1 + 2^-11 + 2^-20 (above the tie: up), 1 + 2^-12 (below: down).
    let h = where(i == 0, 1.00048828125,
            where(i == 1, 1.00146484375,
            where(i == 2, 1.000489234924316, 1.000244140625)))
    ToF16[0 :+ 4] = f32(f16(h))
    StoreF16[0 :+ 4] = h
    // 65519 (largest finite 65504), 65520 (to inf), 2^-25 (a tie: to 0),
    // 3 * 2^-25 (a tie between subnormals 2^-24 and 2^-23: to 2^-23).
    let e = where(i == 0, 65519.0, where(i == 1, 65520.0,
            where(i == 2, 2.98023223876953125e-8, 8.94069671630859375e-8)))
    F16Edges[0 :+ 4] = f32(f16(e))
    // bf16 keeps 8 bits: 1 + 2^-8 (tie: down), 1 + 3 * 2^-8 (tie: up),
    // 1 + 2^-8 + 2^-20 (up), 3.4e38 (past the largest bf16 halfway: inf).
    let g = where(i == 0, 1.00390625, where(i == 1, 1.01171875,
            where(i == 2, 1.003907203674316, 3.4e38)))
    ToBF16[0 :+ 4] = f32(bf16(g))
    StoreBF16[0 :+ 4] = g
    // f16 1 + 2^-10 and 1 + 2^-7 + 2^-10 to bf16.
    F16ToBF16[0 :+ 2] = f32(bf16(f16(where(arange(2) == 0, 1.0009765625, 1.0087890625))))
    let b = where(i == 0, 0.0, where(i == 1, -0.0, where(i == 2, 0.25, -3.0)))
    FloatToBool[0 :+ 4] = bool(b)
    IntToBool[0 :+ 4] = bool(i - 1)
    let t = arange(2) == 1
    BoolToNum[0 :+ 2] = f32(t) * 1.5
    BoolToInt[0 :+ 2] = i32(t) - 3
    let wide = i64(arange(3)) + big            // 2^32 + 1 + [0, 1, 2]
    Narrow[0 :+ 3] = i32(wide - 2147483650)    // 2147483647, -2147483648, -2147483647
    Widen[0 :+ 2] = i64(arange(2) - 5) * 4294967296
    // Scalars (arith.fptosi, sitofp, truncf, extf, cmpf une, uitofp, trunci).
    S[0] = f32(i32(-2.7 + z))
    S[1] = f32(i32(3.0e9 + z))
    S[2] = f32(i32(z / z))
    S[3] = f32(f16(1.00146484375 + z))
    S[4] = f32(bf16(1.01171875 + z))
    S[5] = f32(bool(z - 0.5))
    S[6] = f32(bool(-z))
    S[7] = f32(i32(big))
    S[8] = f32(i64(i32(big) - 2))
    S[9] = f32(16777217 + i32(z)) - 16777216.0
}

// CHECK: ToInt = [-2, 0, 0, 2]
// CHECK-NEXT: Saturate = [2147483647, -2147483648, 2147483520, 0]
// CHECK-NEXT: Saturate64 = [0, 1]
// CHECK-NEXT: ToF32 = [0, 0, 2, 4]
// CHECK-NEXT: ToF16 = [1, 1.00195, 1.00098, 1]
// CHECK-NEXT: F16Edges = [65504, inf, 0, 1.19209e-07]
// CHECK-NEXT: StoreF16 = [1, 1.00195, 1.00098, 1]
// CHECK-NEXT: ToBF16 = [1, 1.01562, 1.00781, inf]
// CHECK-NEXT: StoreBF16 = [1, 1.01562, 1.00781, inf]
// CHECK-NEXT: F16ToBF16 = [1, 1.00781]
// CHECK-NEXT: FloatToBool = [0, 0, 1, 1]
// CHECK-NEXT: IntToBool = [1, 0, 1, 1]
// CHECK-NEXT: BoolToNum = [0, 1.5]
// CHECK-NEXT: BoolToInt = [-3, -2]
// CHECK-NEXT: Narrow = [2147483647, -2147483648, -2147483647]
// CHECK-NEXT: Widen = [-21474836480, -17179869184]
// CHECK-NEXT: S = [-2, 2.14748e+09, 0, 1.00195, 1.01562, 1, 0, 1, -1, 0]
