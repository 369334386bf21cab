// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Open-ended slices are syntax errors, at the ':'.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{open-ended slices are not allowed: write 's : e', 's :+ n' or ':' for the whole axis}}
    let x = a[4:]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{open-ended slices are not allowed: write 's : e', 's :+ n' or ':' for the whole axis}}
    let x = a[:8]
}

// -----

kernel k(a: tensor<f32>[N, M]) {
    // expected-error@+1 {{open-ended slices are not allowed: write 's : e', 's :+ n' or ':' for the whole axis}}
    let x = a[0 :+, 0]
}

// -----

// The length of a slice is the tile's extent: a compile-time constant.
kernel k(a: tensor<f32>[N], n: i32) {
    // expected-error@+1 {{the slice length after ':+' must be a compile-time constant (literals and @autotune names)}}
    let x = a[0 :+ n]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{the slice length after ':+' must be a compile-time constant (literals and @autotune names)}}
    let x = a[0 :+ N]
}

// -----

kernel k(a: tensor<f32>[N], i: i32, j: i32) {
    // expected-error@+1 {{the length of slice 's : e' must be a compile-time constant (e - s); write 's :+ n' with a constant n}}
    let x = a[i : j]
}

// -----

// e - s is not constant when the names do not cancel.
kernel k(a: tensor<f32>[N], i: i32) {
    // expected-error@+1 {{the length of slice 's : e' must be a compile-time constant (e - s); write 's :+ n' with a constant n}}
    let x = a[i : 2 * i + 4]
}

// -----

kernel k(a: tensor<f32>[N], i: i32) {
    // expected-error@+1 {{the length of slice 's : e' must be a compile-time constant (e - s); write 's :+ n' with a constant n}}
    let x = a[i * i : i * i + 4]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{the slice length after ':+' must be positive, got 0}}
    let x = a[0 :+ 0]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{the slice length after ':+' must be positive, got -4}}
    let x = a[0 :+ -4]
}

// -----

kernel k(a: tensor<f32>[N], i: i32) {
    // expected-error@+1 {{slice length must be positive, got -3}}
    let x = a[i + 5 : i + 2]
}

// -----

kernel k(a: tensor<f32>[N], i: i32) {
    // expected-error@+1 {{slice length must be positive, got 0}}
    let x = a[i : i]
}

// -----

// ':' takes the whole axis, so the axis must have a static extent.
kernel k(a: tensor<f32>[M, N]) {
    // expected-error@+1 {{':' takes the whole axis, but axis 1 of 'a' is only known at launch; slice it with 's :+ n' (a tile's extent must be a compile-time constant)}}
    let x = a[0 :+ 4, :]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{':' takes the whole axis, but axis 0 of 'a' is only known at launch; slice it with 's :+ n' (a tile's extent must be a compile-time constant)}}
    a[:] = 0.0
}

// -----

// Indices and slice starts are i32 scalars.
kernel k(a: tensor<f32>[N], x: f32) {
    // expected-error@+1 {{an index must be an integer scalar, got f32}}
    let v = a[x]
}

// -----

kernel k(a: tensor<f32>[N], w: i64) {
    // expected-error@+1 {{an index must be i32 (the index width of a kernel), got i64; convert with i32(...)}}
    let v = a[w]
}

// -----

kernel k(a: tensor<f32>[N], w: i64) {
    // expected-error@+1 {{a slice start must be i32 (the index width of a kernel), got i64; convert with i32(...)}}
    let v = a[w :+ 4]
}

// -----

kernel k(a: tensor<f32>[N], i: i32, w: i64) {
    // expected-error@+1 {{a slice end must be i32 (the index width of a kernel), got i64; convert with i32(...)}}
    let v = a[i : w]
}

// -----

kernel k(a: tensor<f32>[N], p: bool) {
    // expected-error@+1 {{a slice start must be an integer scalar, got bool}}
    let v = a[p :+ 4]
}

// -----

kernel k(a: tensor<f32>[N]) {
    let t = arange(4)
    // expected-error@+1 {{an index must be an integer scalar, got tile<i32>[4]}}
    let v = a[t]
}

// -----

// A literal beyond i32 is i64, so it cannot index.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{an index must be i32 (the index width of a kernel), got i64; convert with i32(...)}}
    let v = a[3000000000]
}

// -----

// An i64 loop variable (from an i64 bound) cannot index without a cast.
kernel k(a: tensor<f32>[N], n: i64) {
    for i in range(0, n) {
        // expected-error@+1 {{an index must be i32 (the index width of a kernel), got i64; convert with i32(...)}}
        a[i] = 0.0
    }
}

// -----

// A slice length that is a literal too large for a tile extent is reported as
// too large, not as "not a compile-time constant".
kernel k(a: tensor<f32>[N]) {
    // expected-error-re@+1 {{the slice length after ':+' {{.*}}3000000000}}
    let v = a[0 :+ 3000000000]
}
