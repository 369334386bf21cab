// Comparisons on tiles and scalars (ordered: false with a NaN, except !=,
// which is true), == and != on bools, && || ! on bool tiles and scalars.
// RUN: phobos-run %s --interpret --init X=iota --scalar z=0 --scalar n=3 --print | FileCheck %s

kernel compare_logic(X: tensor<f32>[4], Lt: tensor<bool>[4], Le: tensor<bool>[4],
                     Gt: tensor<bool>[4], Ge: tensor<bool>[4], Eq: tensor<bool>[4],
                     Ne: tensor<bool>[4], NanLt: tensor<bool>[4], NanEq: tensor<bool>[4],
                     NanNe: tensor<bool>[4], NanGe: tensor<bool>[4], IntCmp: tensor<bool>[4],
                     And: tensor<bool>[4], Or: tensor<bool>[4], Not: tensor<bool>[4],
                     BoolEq: tensor<bool>[4], BoolNe: tensor<bool>[4],
                     S: tensor<bool>[10], z: f32, n: i32) {
    let x = X[0 :+ 4]                          // [0, 1, 2, 3]
    Lt[0 :+ 4] = x < 2.0
    Le[0 :+ 4] = x <= 2.0
    Gt[0 :+ 4] = x > 2.0
    Ge[0 :+ 4] = x >= 2.0
    Eq[0 :+ 4] = x == 2.0
    Ne[0 :+ 4] = x != 2.0
    // NaN in lanes 2 and 3.
    let q = where(x >= 2.0, (x - x) / (x - x), x)
    NanLt[0 :+ 4] = q < 5.0
    NanEq[0 :+ 4] = q == q
    NanNe[0 :+ 4] = q != q
    NanGe[0 :+ 4] = q >= 0.0
    IntCmp[0 :+ 4] = arange(4) != 1
    let small = x < 2.0                        // [1, 1, 0, 0]
    let odd = arange(4) % 2 == 1               // [0, 1, 0, 1]
    And[0 :+ 4] = small && odd
    Or[0 :+ 4] = small || odd
    Not[0 :+ 4] = !small
    BoolEq[0 :+ 4] = small == odd
    BoolNe[0 :+ 4] = small != odd
    // Scalars (arith.cmpf / cmpi / andi / ori / xori).
    let nan = z / z
    S[0] = nan < 1.0
    S[1] = nan == nan
    S[2] = nan != nan
    S[3] = nan != 1.0
    S[4] = n > 2
    S[5] = n <= 2
    S[6] = n > 2 && n < 3
    S[7] = n > 2 || n < 3
    S[8] = !(n == 3)
    S[9] = (n == 3) == true
}

// CHECK: Lt = [1, 1, 0, 0]
// CHECK-NEXT: Le = [1, 1, 1, 0]
// CHECK-NEXT: Gt = [0, 0, 0, 1]
// CHECK-NEXT: Ge = [0, 0, 1, 1]
// CHECK-NEXT: Eq = [0, 0, 1, 0]
// CHECK-NEXT: Ne = [1, 1, 0, 1]
// CHECK-NEXT: NanLt = [1, 1, 0, 0]
// CHECK-NEXT: NanEq = [1, 1, 0, 0]
// CHECK-NEXT: NanNe = [0, 0, 1, 1]
// CHECK-NEXT: NanGe = [1, 1, 0, 0]
// CHECK-NEXT: IntCmp = [1, 0, 1, 1]
// CHECK-NEXT: And = [0, 1, 0, 0]
// CHECK-NEXT: Or = [1, 1, 0, 1]
// CHECK-NEXT: Not = [0, 0, 1, 1]
// CHECK-NEXT: BoolEq = [0, 1, 1, 0]
// CHECK-NEXT: BoolNe = [1, 0, 0, 1]
// CHECK-NEXT: S = [0, 0, 1, 1, 1, 0, 0, 1, 0, 1]
