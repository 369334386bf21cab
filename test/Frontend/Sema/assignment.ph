// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Only a `var` can be assigned to.
kernel k() {
    let x = 1
    // expected-error@+1 {{cannot assign to 'x', declared with 'let' at 5:9; declare it with 'var'}}
    x = 2
}

// -----

kernel k() {
    let x = 1.0
    // expected-error@+1 {{cannot assign to 'x', declared with 'let' at 4:9; declare it with 'var'}}
    x += 2.0
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{cannot assign to parameter 'n'}}
    n = 2
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{cannot assign to parameter 'a'; store into a slice of it, a[...] = ...}}
    a = 1.0
}

// -----

kernel k() {
    for i in range(0, 4) {
        // expected-error@+1 {{cannot assign to loop variable 'i'}}
        i += 1
    }
}

// -----

@autotune(B in [16, 32])
kernel k() {
    // expected-error@+1 {{cannot assign to compile-time name 'B'}}
    B = 64
}

// -----

// A tensor extent is bound at launch; it cannot be assigned either, and the
// error calls it a dimension (it is not a compile-time name).
kernel k(a: tensor<f32>[N]) {
    // expected-error-re@+1 {{cannot assign to {{.*}}dimension 'N'}}
    N = 4
}

// -----

kernel k() {
    // expected-error@+1 {{unknown name 'nothing'}}
    nothing = 1
}

// -----

// Float to int is never implicit.
kernel k() {
    // expected-error@+1 {{cannot convert f32 to i32 implicitly for 'x'; write i32(...)}}
    let x: i32 = 1.5
}

// -----

kernel k(x: f32) {
    var n = 0
    // expected-error@+1 {{cannot convert f32 to i32 implicitly for 'n'; write i32(...)}}
    n = x
}

// -----

// `n /= 2.0` computes in f32 and cannot store back into an i32.
kernel k() {
    var n = 10
    // expected-error@+1 {{cannot convert f32 to i32 implicitly for 'n'; write i32(...)}}
    n /= 2.0
}

// -----

kernel k(o: tensor<i32>[N], x: f32) {
    // expected-error@+1 {{cannot convert f32 to i32 implicitly for the slice; write i32(...)}}
    o[0] = x
}

// -----

kernel k(o: tensor<i32>[N], a: tensor<f16>[N]) {
    // expected-error@+1 {{cannot convert f16 to i32 implicitly for the slice; write i32(...)}}
    o[0 :+ 8] = a[0 :+ 8]
}

// -----

kernel k(o: tensor<i32>[N]) {
    // expected-error@+1 {{cannot convert f32 to i32 implicitly for the slice; write i32(...)}}
    o[0 :+ 8] += 0.5
}

// -----

// Nothing converts to or from bool implicitly.
kernel k() {
    // expected-error@+1 {{cannot convert i32 to bool implicitly for 'p'; write bool(...)}}
    let p: bool = 1
}

// -----

kernel k(p: bool) {
    // expected-error@+1 {{cannot convert bool to f32 implicitly for 'x'; write f32(...)}}
    let x: f32 = p
}

// -----

// A tile does not fit in a scalar.
kernel k(a: tensor<f32>[N]) {
    var x = 0.0
    // expected-error@+1 {{cannot store a tile<f32>[8] in 'x' of type f32}}
    x = a[0 :+ 8]
}

// -----

kernel k(a: tensor<f32>[N]) {
    var x = 0.0
    // expected-error@+1 {{cannot store a tile<f32>[8] in 'x' of type f32}}
    x += a[0 :+ 8]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{cannot store a tile<f32>[8] in the slice of type f32}}
    a[0] = a[0 :+ 8]
}

// -----

// Compound assignment on bools.
kernel k() {
    var p = true
    // expected-error@+1 {{'+' needs numbers, got bool and bool}}
    p += true
}

// -----

// Integers widen implicitly but never narrow.
kernel k(w: i64) {
    // expected-error@+1 {{cannot convert i64 to i32 implicitly for 'x'; write i32(...)}}
    let x: i32 = w
}

// -----

kernel k(o: tensor<i32>[N], w: i64) {
    // expected-error@+1 {{cannot convert i64 to i32 implicitly for the slice; write i32(...)}}
    o[0] = w
}

// -----

kernel k() {
    var n = 0
    // expected-error@+1 {{cannot convert i64 to i32 implicitly for 'n'; write i32(...)}}
    n = 3000000000
}
