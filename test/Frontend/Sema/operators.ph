// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Arithmetic needs numbers, logic needs bools, '%' needs integers; bool
// mixes with nothing but bool. The error points at the operator.
kernel k(p: bool, q: bool) {
    // expected-error@+1 {{'+' needs numbers, got bool and bool}}
    let x = p + q
}

// -----

kernel k(p: bool, q: bool) {
    // expected-error@+1 {{'<' needs numbers, got bool and bool}}
    let x = p < q
}

// -----

kernel k(p: bool, n: i32) {
    // expected-error@+1 {{'+' cannot mix bool and i32}}
    let x = p + n
}

// -----

kernel k(p: bool, x: f32) {
    // expected-error@+1 {{'==' cannot mix f32 and bool}}
    let y = x == p
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{'&&' needs bool operands, got i32 and i32}}
    let x = n && n
}

// -----

kernel k(p: bool, n: i32) {
    // expected-error@+1 {{'||' cannot mix bool and i32}}
    let x = p || n
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{'%' needs integers, got f32 and f32}}
    let y = x % x
}

// -----

kernel k(n: i32, x: f32) {
    // expected-error@+1 {{'%' needs integers, got i32 and f32}}
    let y = n % x
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{'%' needs integers, got tile<f32>[4] and i32}}
    let y = a[0 :+ 4] % 2
}

// -----

kernel k(p: bool) {
    // expected-error@+1 {{'-' needs a number, got bool}}
    let x = -p
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{'!' needs a bool, got i32}}
    let x = !n
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{'!' needs a bool, got tile<f32>[4]}}
    let x = !a[0 :+ 4]
}

// -----

kernel k(a: tensor<bool>[N]) {
    // expected-error@+1 {{'*' needs numbers, got tile<bool>[4] and tile<bool>[4]}}
    let x = a[0 :+ 4] * a[0 :+ 4]
}

// -----

// An error in an operand is reported once, not again for the operator.
kernel k(n: i32) {
    // expected-error@+1 {{unknown name 'zz'}}
    let x = (zz + 1) * n - 2
}
