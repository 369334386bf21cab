// RUN: phobos-translate --import-phobos %s | FileCheck %s

// Integer literals are i32 when they fit, i64 otherwise; float literals
// (with a '.', an exponent or both) are f32.
kernel literals(i: tensor<i32>[N], l: tensor<i64>[N], f: tensor<f32>[N], b: tensor<bool>[N]) {
    i[0] = 0
    i[1] = 42
    i[2] = 007
    i[3] = 2147483647
    l[0] = 2147483648
    l[1] = 9223372036854775807
    f[0] = 0.5
    f[1] = 1.0e-5
    f[2] = 2.5E+3
    f[3] = 3e2
    f[4] = 1E2
    f[5] = 6.25e0
    f[6] = 3.0e38
    f[7] = 0.0
    // Rounded once, from the text straight to f32: just above the midpoint
    // of 1 and the next f32, whose nearest double is the midpoint (which
    // would round to even, 1.0); and the largest f32 written to 8 digits,
    // a little above it.
    f[8] = 1.00000005960464477539062500001
    f[9] = 3.4028235e38
    b[0] = true
    b[1] = false
}

// CHECK-LABEL: phobos.kernel @literals
// CHECK: arith.constant 0 : i32
// CHECK: arith.constant 42 : i32
// CHECK: arith.constant 7 : i32
// CHECK: arith.constant 2147483647 : i32
// CHECK: %[[L0:.*]] = arith.constant 2147483648 : i64
// CHECK: phobos.store_scalar %[[L0]]
// CHECK: %[[L1:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: phobos.store_scalar %[[L1]]
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: arith.constant 2.500000e+03 : f32
// CHECK: arith.constant 3.000000e+02 : f32
// CHECK: arith.constant 1.000000e+02 : f32
// CHECK: arith.constant 6.250000e+00 : f32
// CHECK: arith.constant 3.000000e+38 : f32
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: arith.constant 1.00000012 : f32
// CHECK: arith.constant 3.40282347E+38 : f32
// CHECK: arith.constant true
// CHECK: arith.constant false

// A '-' before a literal is the unary operator.
kernel negative(i: tensor<i32>[N], f: tensor<f32>[N]) {
    i[0] = -5
    f[0] = -1.0e30
}

// CHECK-LABEL: phobos.kernel @negative
// CHECK: %[[FIVE:.*]] = arith.constant 5 : i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[NEG:.*]] = arith.subi %[[ZERO]], %[[FIVE]] : i32
// CHECK: phobos.store_scalar %[[NEG]]
// CHECK: %[[BIG:.*]] = arith.constant 1.000000e+30 : f32
// CHECK: %[[NEGF:.*]] = arith.negf %[[BIG]] : f32
// CHECK: phobos.store_scalar %[[NEGF]]
