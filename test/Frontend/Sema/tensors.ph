// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// A tensor lives in global memory and is only used through slices.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{an operand cannot be a whole tensor; slice it (T[...])}}
    let x = a + 1.0
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{an operand cannot be a whole tensor; slice it (T[...])}}
    let x = -a
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{an argument cannot be a whole tensor; slice it (T[...])}}
    let x = rowsum(a)
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{a tensor cannot be bound to a name; slice it (T[...])}}
    let x = a
}

// -----

kernel k(a: tensor<f32>[N], b: tensor<f32>[N]) {
    // expected-error@+1 {{a tensor<f32>[?] cannot be stored in the slice; slice it first}}
    b[0 :+ 4] = a
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{a tensor<f32>[?] cannot be stored in 't'; slice it first}}
    let t: tile<f32>[4] = a
}

// -----

kernel k(a: tensor<f32>[N], c: bool) {
    // expected-error@+1 {{the condition of 'if' must be a scalar bool, got tensor<f32>[?]}}
    if a {
    }
}

// -----

// Tensors are parameters only; tiles are locals only.
kernel k() {
    // expected-error@+1 {{tensors are kernel parameters; a local value is a scalar or a tile}}
    let t: tensor<f32>[4] = 0.0
}

// -----

// expected-error@+1 {{a kernel parameter cannot be a tile; pass a tensor and slice it}}
kernel k(t: tile<f32>[16]) {
}

// -----

// Only tensors can be subscripted.
kernel k(x: f32) {
    // expected-error@+1 {{only tensor parameters can be subscripted, got f32}}
    let y = x[0]
}

// -----

kernel k(a: tensor<f32>[N]) {
    let t = a[0 :+ 8]
    // expected-error@+1 {{only tensor parameters can be subscripted, got tile<f32>[8]}}
    let y = t[0]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{only tensor parameters can be subscripted, got tile<f32>[8]}}
    let y = a[0 :+ 8][1]
}

// -----

// Literal extents are positive and fit in i32.
// expected-error@+1 {{extents must be between 1 and 2147483647, got 0}}
kernel k(a: tensor<f32>[0]) {
}

// -----

// expected-error@+1 {{extents must be between 1 and 2147483647, got 4294967296}}
kernel k(a: tensor<f32>[4294967296]) {
}

// -----

kernel k() {
    // expected-error@+1 {{extents must be between 1 and 2147483647, got 0}}
    var t: tile<f32>[4, 0] = 0.0
}
