// phobos.fill: a scalar declared as a tile fills every element, in the
// tile's element type (an i32 literal into f32, a bool into bool).
// RUN: phobos-run %s --interpret --print | FileCheck %s

kernel fill(F: tensor<f32>[2, 3], I: tensor<i32>[4], B: tensor<bool>[3], H: tensor<f16>[2]) {
    let f: tile<f32>[2, 3] = 1.5
    F[0 :+ 2, 0 :+ 3] = f
    let i: tile<i32>[4] = 7
    I[0 :+ 4] = i
    let b: tile<bool>[3] = true
    B[0 :+ 3] = b
    // An f32 scalar rounds once, to f16: 0.1 is 0.0999755859375 in f16.
    let h: tile<f16>[2] = 0.1
    H[0 :+ 2] = h
}

// CHECK: fill [-] interpreter grid (1,1,1)
// CHECK-NEXT: F = [1.5, 1.5, 1.5; 1.5, 1.5, 1.5]
// CHECK-NEXT: I = [7, 7, 7, 7]
// CHECK-NEXT: B = [1, 1, 1]
// CHECK-NEXT: H = [0.0999756, 0.0999756]
