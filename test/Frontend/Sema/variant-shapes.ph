// RUN: phobos-translate --import-phobos %s --variant T=32 -verify-diagnostics -split-input-file
// RUN: phobos-translate --import-phobos %s -split-input-file | FileCheck %s --check-prefix=DEFAULT

// Shapes depend on the variant: these kernels are fine in the default
// variant (T=16) and wrong with T=32. An error that only a non-default
// variant shows carries a note naming the variant.

@autotune(T in [16, 32])
kernel store(X: tensor<f32>[M, 4]) {
    var t: tile<f32>[16, 4] = 0.0
    // expected-error@+2 {{shape mismatch: cannot store a tile<f32>[32, 4] in 't' of type tile<f32>[16, 4]}}
    // expected-note@+1 {{in variant T=32}}
    t = X[0 :+ T, :]
    X[0 :+ 16, :] = t
}
// DEFAULT-LABEL: phobos.kernel @store
// DEFAULT-SAME: variant = {T = 16 : i64}
// DEFAULT: phobos.load {{.*}} -> !phobos.tile<16x4xf32>

// -----

@autotune(T in [16, 32])
kernel inner(A: tensor<f32>[M, K], B: tensor<f32>[16, 16], C: tensor<f32>[M, 16]) {
    // expected-error@+2 {{'dot' inner dimensions differ: tile<f32>[16, 32] x tile<f32>[16, 16]}}
    // expected-note@+1 {{in variant T=32}}
    C[0 :+ 16, :] = dot(A[0 :+ 16, 0 :+ T], B[:, :])
}
// DEFAULT-LABEL: phobos.kernel @inner
// DEFAULT: phobos.dot {{.*}} : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>

// -----

@autotune(T in [16, 32])
kernel broadcast(A: tensor<f32>[M, N]) {
    let a = A[0 :+ 16, 0 :+ 64]
    // expected-error@+2 {{shapes do not broadcast: tile<f32>[16, 64] + tile<f32>[32, 1]}}
    // expected-note@+1 {{in variant T=32}}
    A[0 :+ 16, 0 :+ 64] = a + A[0 :+ T, 0 :+ 1]
}
// DEFAULT-LABEL: phobos.kernel @broadcast
// DEFAULT: phobos.add {{.*}} : !phobos.tile<16x64xf32>, !phobos.tile<16x1xf32>

// -----

// Every name of the variant is listed, in @autotune's order, including
// those at their default.
@autotune(U in [4, 8], T in [16, 32])
kernel reshaped(A: tensor<f32>[M, N]) {
    // expected-error@+2 {{cannot reshape tile<f32>[4, 32] to [4, 16]: the element counts differ}}
    // expected-note@+1 {{in variant U=4,T=32}}
    let r = reshape(A[0 :+ U, 0 :+ T], 4, 16)
}
// DEFAULT-LABEL: phobos.kernel @reshaped
// DEFAULT: phobos.reshape {{.*}} : !phobos.tile<4x16xf32> -> !phobos.tile<4x16xf32>

// -----

// A tile that outgrows the limit in the larger variant.
@autotune(T in [16, 32])
kernel huge(A: tensor<f32>[M, N]) {
    // expected-error@+2 {{tile [32, 1048576] has more than 16777216 elements}}
    // expected-note@+1 {{in variant T=32}}
    let t = A[0 :+ T, 0 :+ 1048576]
}
// DEFAULT-LABEL: phobos.kernel @huge
// DEFAULT: -> !phobos.tile<16x1048576xf32>

// -----

// A slice length that becomes 0 in the variant.
@autotune(T in [16, 32])
kernel empty(A: tensor<f32>[N]) {
    // expected-error@+2 {{the slice length after ':+' must be positive, got 0}}
    // expected-note@+1 {{in variant T=32}}
    let t = A[0 :+ 32 - T]
}
// DEFAULT-LABEL: phobos.kernel @empty
// DEFAULT: -> !phobos.tile<16xf32>

// -----

// An @aligned promise on a dim that is a constant (D) holds in the default
// variant (64 is a multiple of 16 * 16 / 8 = 32) and breaks with T=32 (128).
@autotune(T in [16, 32], D in [64])
// expected-error@+2 {{@aligned promises that 'D' is a multiple of 128, but it is 64}}
// expected-note@+1 {{in variant T=32,D=64}}
@aligned(D = T * T / 8)
kernel aligned(A: tensor<f32>[N, D]) {
}
// DEFAULT-LABEL: phobos.kernel @aligned
// DEFAULT-SAME: aligned = {D = 32 : i64}
