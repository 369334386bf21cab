// Integer division or remainder by zero, on scalars (arith.divsi / remsi)
// and on tiles (phobos.div / rem), is a run-time error at the operator; so
// is the overflowing minimum / -1. Float division by zero is not an error.
// RUN: not phobos-run %s --interpret --kernel scalar_div --scalar d=0 2>&1 | FileCheck %s --check-prefix=SDIV
// RUN: not phobos-run %s --interpret --kernel scalar_rem --scalar d=0 2>&1 | FileCheck %s --check-prefix=SREM
// RUN: not phobos-run %s --interpret --kernel tile_rem 2>&1 | FileCheck %s --check-prefix=TREM
// RUN: not phobos-run %s --interpret --kernel tile_div_compound --grid 2 2>&1 | FileCheck %s --check-prefix=TDIV
// RUN: not phobos-run %s --interpret --kernel overflow --scalar d=-1 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: phobos-run %s --interpret --kernel float_div --scalar d=0 --print 2>&1 | FileCheck %s --check-prefix=FLOAT

kernel scalar_div(Out: tensor<i32>[1], d: i32) {
    Out[0] = 7 / d
    // SDIV: {{.*}}.ph:[[@LINE-1]]:16: error: integer division by zero (in CTA 0, 0, 0)
    // SDIV-NEXT: {{^}}    Out[0] = 7 / d
}

kernel scalar_rem(Out: tensor<i64>[1], d: i64) {
    let n: i64 = 7
    Out[0] = n % d
    // SREM: {{.*}}.ph:[[@LINE-1]]:16: error: integer division by zero (in CTA 0, 0, 0)
}

kernel tile_rem(Out: tensor<i32>[4]) {
    let t = arange(4) - 3                      // [-3, -2, -1, 0]
    Out[0 :+ 4] = 12 % t
    // TREM: {{.*}}.ph:[[@LINE-1]]:22: error: integer division by zero (in CTA 0, 0, 0)
}

// Only CTA 1 divides by zero; a compound /= is the same phobos.div.
kernel tile_div_compound(Out: tensor<i32>[2, 4]) {
    var t = arange(4) + 1
    t /= arange(4) * (1 - ctx.block.x) + 1 - ctx.block.x
    // TDIV: {{.*}}.ph:[[@LINE-1]]:7: error: integer division by zero (in CTA 1, 0, 0)
    Out[ctx.block.x, 0 :+ 4] = t
}

kernel overflow(Out: tensor<i32>[1], d: i32) {
    let m = -2147483647 + d                    // INT32_MIN
    Out[0] = m / d
    // OVER: {{.*}}.ph:[[@LINE-1]]:16: error: integer division overflows (minimum / -1) (in CTA 0, 0, 0)
}

kernel float_div(Out: tensor<f32>[2], d: f32) {
    Out[0] = 1.0 / d
    Out[0 :+ 2] = where(arange(2) == 0, 1.0 / d, -1.0 / (f32(arange(2)) * d))
}

// FLOAT: Out = [inf, -inf]
