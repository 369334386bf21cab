// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// A tile's extents are literals or @autotune names (constants of the
// variant), never launch-time dims or runtime values.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{tile extent 'N' must be an integer literal or an @autotune name}}
    var t: tile<f32>[N] = 0.0
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{tile extent 'n' must be an integer literal or an @autotune name}}
    var t: tile<f32>[4, n] = 0.0
}

// -----

kernel k() {
    // expected-error@+1 {{tile extent 'UNDECLARED' must be an integer literal or an @autotune name}}
    var t: tile<f32>[UNDECLARED] = 0.0
}

// -----

kernel k() {
    let four = 4
    // expected-error@+1 {{tile extent 'four' must be an integer literal or an @autotune name}}
    var t: tile<f32>[four] = 0.0
}

// -----

// A @cluster-only name is not a constant of the variant (and @cluster names
// must be @autotune names anyway).
@autotune(T in [16])
@cluster(T in [1024])
kernel k() {
    var ok: tile<f32>[T] = 0.0
    // expected-error@+1 {{tile extent 'S' must be an integer literal or an @autotune name}}
    var bad: tile<f32>[S] = 0.0
}

// -----

// A tile parameter.
// expected-error@+1 {{a kernel parameter cannot be a tile; pass a tensor and slice it}}
kernel k(a: tensor<f32>[N], t: tile<f32>[4, 4]) {
}

// -----

// The initialiser must fit the declared tile.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{shape mismatch: cannot store a tile<f32>[8] in 't' of type tile<f32>[4]}}
    var t: tile<f32>[4] = a[0 :+ 8]
}

// -----

kernel k() {
    // expected-error@+1 {{cannot convert f32 to i32 implicitly for 't'; write i32(...)}}
    var t: tile<i32>[4] = 0.5
}
