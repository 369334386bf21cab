// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Subscripts: one per tensor axis.
kernel k(a: tensor<f32>[M, N]) {
    // expected-error@+1 {{'a' has rank 2 but 1 subscript is given}}
    let x = a[0]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{'a' has rank 1 but 3 subscripts are given}}
    let x = a[0, 0 :+ 4, 1]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{'a' has rank 1 but 2 subscripts are given}}
    a[0, 0] = 1.0
}

// -----

// Element-wise operators broadcast NumPy's way or fail.
kernel k(a: tensor<f32>[16, 32], b: tensor<f32>[8, 32]) {
    // expected-error@+1 {{shapes do not broadcast: tile<f32>[16, 32] + tile<f32>[8, 32]}}
    let s = a[:, :] + b[:, :]
}

// -----

kernel k(a: tensor<f32>[16, 32]) {
    // expected-error@+1 {{shapes do not broadcast: tile<f32>[16, 32] < tile<f32>[16, 16]}}
    let s = a[:, :] < a[:, 0 :+ 16]
}

// -----

kernel k(a: tensor<f32>[16, 32]) {
    var t: tile<f32>[16, 32] = 0.0
    // expected-error@+1 {{shapes do not broadcast: tile<f32>[16, 32] * tile<f32>[32, 16]}}
    t *= transpose(a[:, :])
}

// -----

// The broadcast error of tmax/tmin names the function, not '+'.
kernel k(a: tensor<f32>[4], b: tensor<f32>[8]) {
    // expected-error-re@+1 {{shapes do not broadcast{{.*}}tmax{{.*}}tile<f32>[4]{{.*}}tile<f32>[8]}}
    let m = tmax(a[:], b[:])
}

// -----

kernel k(a: tensor<f32>[4], b: tensor<f32>[8]) {
    // expected-error-re@+1 {{shapes do not broadcast{{.*}}tmin{{.*}}tile<f32>[4]{{.*}}tile<f32>[8]}}
    let m = tmin(a[:], b[:])
}

// -----

// Stores and assignments: the value must broadcast to the target's shape
// exactly (an [R, 1] tile into an [R, C] slice is fine; the reverse is not).
kernel k(a: tensor<f32>[16, 32]) {
    // expected-error@+1 {{shape mismatch: cannot store a tile<f32>[16, 32] in the slice of type tile<f32>[16, 1]}}
    a[:, 0 :+ 1] = a[:, :]
}

// -----

kernel k(a: tensor<f32>[16, 32]) {
    // expected-error@+1 {{shape mismatch: cannot store a tile<f32>[8, 32] in the slice of type tile<f32>[16, 32]}}
    a[:, :] = a[0 :+ 8, :]
}

// -----

kernel k(a: tensor<f32>[16, 32]) {
    var r: tile<f32>[16, 1] = 0.0
    // expected-error@+1 {{shape mismatch: cannot store a tile<f32>[16, 32] in 'r' of type tile<f32>[16, 1]}}
    r += a[:, :]
}

// -----

kernel k(a: tensor<f32>[16, 32]) {
    // expected-error@+1 {{shape mismatch: cannot store a tile<f32>[16, 32] in 't' of type tile<f32>[32, 16]}}
    let t: tile<f32>[32, 16] = a[:, :]
}

// -----

// dot contracts a's last axis with b's first; dot_t both last axes.
kernel k(a: tensor<f32>[16, 32], b: tensor<f32>[16, 8]) {
    // expected-error@+1 {{'dot' inner dimensions differ: tile<f32>[16, 32] x tile<f32>[16, 8]}}
    let d = dot(a[:, :], b[:, :])
}

// -----

kernel k(a: tensor<f32>[16, 32], b: tensor<f32>[32, 16]) {
    // expected-error@+1 {{'dot_t' inner dimensions differ: tile<f32>[16, 32] x tile<f32>[32, 16] (contracting the last axes)}}
    let d = dot_t(a[:, :], b[:, :])
}

// -----

// Limits on tiles: at most 8 axes and 2^24 elements.
kernel k(a: tensor<f32>[M, N]) {
    // expected-error@+1 {{tile [8192, 4096] has more than 16777216 elements}}
    let t = a[0 :+ 8192, 0 :+ 4096]
}

// -----

kernel k() {
    // expected-error@+1 {{tile [4096, 8192] has more than 16777216 elements}}
    var t: tile<f32>[4096, 8192] = 0.0
}

// -----

kernel k() {
    // expected-error@+1 {{at most 8 extents are allowed}}
    var t: tile<f32>[1, 1, 1, 1, 1, 1, 1, 1, 1] = 0.0
}

// -----

// expected-error@+1 {{at most 8 extents are allowed}}
kernel k(a: tensor<f32>[1, 1, 1, 1, 1, 1, 1, 1, 1]) {
}

// -----

kernel k(a: tensor<f32>[M, N]) {
    // expected-error@+1 {{cannot reshape tile<f32>[4, 4] to [4, 2]: the element counts differ}}
    let r = reshape(a[0 :+ 4, 0 :+ 4], 4, 2)
}

// -----

kernel k(a: tensor<f32>[M, N]) {
    // expected-error@+1 {{a tile has at most 8 axes}}
    let r = reshape(a[0 :+ 1, 0 :+ 1], 1, 1, 1, 1, 1, 1, 1, 1, 1)
}
