// phobos.arange counts from 0; phobos.reshape keeps the row-major order of
// the elements; arange broadcasts along the last axis, reshape(arange(R), R, 1)
// along the first.
// RUN: phobos-run %s --interpret --print | FileCheck %s

kernel arange_reshape(A: tensor<i32>[6], R: tensor<i32>[2, 3], C: tensor<i32>[3, 2],
                      Cols: tensor<i32>[2, 3], Rows: tensor<i32>[2, 3], V: tensor<f32>[6]) {
    let a = arange(6)
    A[0 :+ 6] = a
    R[0 :+ 2, 0 :+ 3] = reshape(a, 2, 3)
    C[0 :+ 3, 0 :+ 2] = reshape(reshape(a, 2, 3), 3, 2)
    // A [3] tile stored into a [2, 3] slice repeats on every row...
    Cols[0 :+ 2, 0 :+ 3] = arange(3)
    // ...and a [2, 1] tile repeats along each row.
    Rows[0 :+ 2, 0 :+ 3] = reshape(arange(2), 2, 1) * 10
    // arange in float arithmetic: i32 tile * f32 scalar is f32.
    V[0 :+ 6] = arange(6) * 0.5
}

// CHECK: A = [0, 1, 2, 3, 4, 5]
// CHECK-NEXT: R = [0, 1, 2; 3, 4, 5]
// CHECK-NEXT: C = [0, 1; 2, 3; 4, 5]
// CHECK-NEXT: Cols = [0, 1, 2; 0, 1, 2]
// CHECK-NEXT: Rows = [0, 0, 0; 10, 10, 10]
// CHECK-NEXT: V = [0, 0.5, 1, 1.5, 2, 2.5]
