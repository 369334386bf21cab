// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// range(start, end[, step]): integer scalars; the step a positive
// compile-time constant.
kernel k(n: i32) {
    // expected-error@+1 {{the range step must be a positive compile-time constant (a literal or an @autotune name)}}
    for i in range(0, n, 0) {
    }
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{the range step must be a positive compile-time constant (a literal or an @autotune name)}}
    for i in range(n, 0, -1) {
    }
}

// -----

kernel k(n: i32, s: i32) {
    // expected-error@+1 {{the range step must be a positive compile-time constant (a literal or an @autotune name)}}
    for i in range(0, n, s) {
    }
}

// -----

// A launch-time dim is not a compile-time constant.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{the range step must be a positive compile-time constant (a literal or an @autotune name)}}
    for i in range(0, 64, N) {
    }
}

// -----

@autotune(S in [4, 8])
kernel k(n: i32) {
    // expected-error@+1 {{the range step must be a positive compile-time constant (a literal or an @autotune name)}}
    for i in range(0, n, S - 4) {
    }
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{the range step must be an integer scalar, got f32}}
    for i in range(0, n, 0.5) {
    }
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{the range start must be an integer scalar, got f32}}
    for i in range(0.0, n) {
    }
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{the range end must be an integer scalar, got f32}}
    for i in range(0, x) {
    }
}

// -----

kernel k(p: bool) {
    // expected-error@+1 {{the range end must be an integer scalar, got bool}}
    for i in range(0, p) {
    }
}

// -----

kernel k(a: tensor<i32>[N]) {
    // expected-error@+1 {{the range end must be an integer scalar, got tile<i32>[4]}}
    for i in range(0, a[0 :+ 4]) {
    }
}

// -----

kernel k(a: tensor<i32>[N]) {
    // expected-error@+1 {{an operand cannot be a whole tensor; slice it (T[...])}}
    for i in range(0, a + 1) {
    }
}
