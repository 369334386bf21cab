// tanh on tiles (phobos.tanh) and scalars (math.tanh), rounded to the
// element type. The interpreter computes the exact value; the GPU's
// tanh.approx.f32 is within about 2^-11 of it (docs/language.md, section 8),
// so this test is not one of the GPU suite's GPU = interpreter cases.
// RUN: phobos-run %s --interpret --init X=iota --scalar half=0.5 --print | FileCheck %s

kernel tanh_values(X: tensor<f32>[5], T: tensor<f32>[5], H: tensor<f16>[2], S: tensor<f32>[2], half: f32) {
    let x = X[0 :+ 5]                          // [0, 1, 2, 3, 4]
    T[0 :+ 5] = tanh(x * 10.0 - 20.0)          // -1, -1, 0, 1, 1: saturates
    H[0 :+ 2] = tanh(f16(X[0 :+ 2] * 0.5))     // f16 tanh(0), tanh(0.5)
    S[0] = tanh(half)
    S[1] = 0.5 + 0.5 * tanh(-half)             // sigmoid(-1)
}

// CHECK: T = [-1, -1, 0, 1, 1]
// CHECK-NEXT: H = [0, 0.462{{[0-9]*}}]
// CHECK-NEXT: S = [0.462117, 0.268941]
