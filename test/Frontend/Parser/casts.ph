// RUN: phobos-translate --import-phobos %s | FileCheck %s

// Casts are calls named by the target type: f16(x), bf16(x), f32(x),
// f64(x), i32(x), i64(x), bool(x). On tiles they are phobos.cast.
kernel tile_casts(F: tensor<f32>[16, 16], I: tensor<i32>[16, 16]) {
    let f = F[:, :]
    let i = I[:, :]
    let c0 = f16(f)
    let c1 = bf16(f)
    let c2 = f32(c0)
    let c3 = f64(f)
    let c4 = i32(f)
    let c5 = i64(i)
    let c6 = bool(i)
    let c7 = f32(f)
}
// CHECK-LABEL: phobos.kernel @tile_casts
// CHECK: %[[F:.*]] = phobos.load {{.*}} -> !phobos.tile<16x16xf32>
// CHECK: %[[I:.*]] = phobos.load {{.*}} -> !phobos.tile<16x16xi32>
// CHECK-NEXT: %[[H:.*]] = phobos.cast %[[F]] : !phobos.tile<16x16xf32> to !phobos.tile<16x16xf16>
// CHECK-NEXT: phobos.cast %[[F]] : !phobos.tile<16x16xf32> to !phobos.tile<16x16xbf16>
// CHECK-NEXT: phobos.cast %[[H]] : !phobos.tile<16x16xf16> to !phobos.tile<16x16xf32>
// CHECK-NEXT: phobos.cast %[[F]] : !phobos.tile<16x16xf32> to !phobos.tile<16x16xf64>
// CHECK-NEXT: phobos.cast %[[F]] : !phobos.tile<16x16xf32> to !phobos.tile<16x16xi32>
// CHECK-NEXT: phobos.cast %[[I]] : !phobos.tile<16x16xi32> to !phobos.tile<16x16xi64>
// CHECK-NEXT: phobos.cast %[[I]] : !phobos.tile<16x16xi32> to !phobos.tile<16x16xi1>
// A cast to the same type is a no-op.
// CHECK-NEXT: phobos.return

// On scalars they are arith conversions: extf/truncf between floats (f16 <->
// bf16 through f32), sitofp/fptosi between ints and floats, extsi/trunci
// between ints, a compare with zero to bool and an unsigned extension from
// bool.
kernel scalar_casts(x: f32, h: f16, n: i32, w: i64, p: bool) {
    let a = f16(x)
    let b = f64(h)
    let c = bf16(h)
    let d = f32(n)
    let e = i32(x)
    let f = i64(n)
    let g = i32(w)
    let k = bool(x)
    let l = bool(n)
    let m = i32(p)
    let q = f32(p)
}
// CHECK-LABEL: phobos.kernel @scalar_casts
// CHECK-SAME: %[[X:[^:]*]]: f32{{.*}}, %[[H:[^:]*]]: f16{{.*}}, %[[N:[^:]*]]: i32{{.*}}, %[[W:[^:]*]]: i64{{.*}}, %[[P:[^:]*]]: i1
// CHECK-NEXT: arith.truncf %[[X]] : f32 to f16
// CHECK-NEXT: arith.extf %[[H]] : f16 to f64
// CHECK-NEXT: %[[HW:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT: arith.truncf %[[HW]] : f32 to bf16
// CHECK-NEXT: arith.sitofp %[[N]] : i32 to f32
// Float to integer saturates at the integer's range, NaN to 0, as tile
// casts do (docs/language.md, "Casts").
// CHECK-NEXT: %[[T:.*]] = arith.fptosi %[[X]] : f32 to i32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 2.14748365E+9 : f32
// CHECK-NEXT: %[[BIG:.*]] = arith.cmpf oge, %[[X]], %[[HI]] : f32
// CHECK-NEXT: %[[LO:.*]] = arith.constant -2.14748365E+9 : f32
// CHECK-NEXT: %[[SMALL:.*]] = arith.cmpf olt, %[[X]], %[[LO]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT: %[[S1:.*]] = arith.select %[[BIG]], %[[MAX]], %[[T]] : i32
// CHECK-NEXT: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT: %[[S2:.*]] = arith.select %[[SMALL]], %[[MIN]], %[[S1]] : i32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.select %[[NAN]], %[[Z]], %[[S2]] : i32
// CHECK-NEXT: arith.extsi %[[N]] : i32 to i64
// CHECK-NEXT: arith.trunci %[[W]] : i64 to i32
// CHECK-NEXT: %[[FZ:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.cmpf une, %[[X]], %[[FZ]] : f32
// CHECK-NEXT: %[[IZ:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.cmpi ne, %[[N]], %[[IZ]] : i32
// CHECK-NEXT: arith.extui %[[P]] : i1 to i32
// CHECK-NEXT: arith.uitofp %[[P]] : i1 to f32
// CHECK-NEXT: phobos.return
