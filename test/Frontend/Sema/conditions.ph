// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Conditions of if and while are scalar bools.
kernel k(n: i32) {
    // expected-error@+1 {{the condition of 'if' must be a scalar bool, got i32}}
    if n {
    }
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{the condition of 'while' must be a scalar bool, got f32}}
    while x {
    }
}

// -----

kernel k() {
    // expected-error@+1 {{the condition of 'if' must be a scalar bool, got i32}}
    if 1 {
    }
}

// -----

// A tile of bools is not a condition; where() selects element-wise.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{the condition of 'if' must be a scalar bool, got tile<bool>[8]; use where() on tiles}}
    if a[0 :+ 8] > 0.0 {
    }
}

// -----

kernel k(a: tensor<bool>[N]) {
    // expected-error@+1 {{the condition of 'while' must be a scalar bool, got tile<bool>[4]; use where() on tiles}}
    while a[0 :+ 4] {
    }
}

// -----

// An 'else if' condition is checked the same way.
kernel k(c: bool, n: i32) {
    if c {
    // expected-error@+1 {{the condition of 'if' must be a scalar bool, got i32}}
    } else if n {
    }
}

// -----

// The error is at the condition, and the body is still checked.
kernel k(n: i32) {
    // expected-error@+1 {{the condition of 'if' must be a scalar bool, got i32}}
    if n + 1 {
        // expected-error@+1 {{unknown name 'q'}}
        let x = q
    }
}

// -----

// A scalar bool element read from a tensor is fine; a comparison too.
kernel k(a: tensor<bool>[N], n: i32) {
    if a[0] {
    }
    while n > 0 && a[1] {
    }
    // expected-error@+1 {{unknown name 'done'}}
    if done {
    }
}
