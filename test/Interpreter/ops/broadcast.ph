// phobos.broadcast (from storing a [R, 1], [1, C], [C] or scalar value into an
// [R, C] slice or typed tile) and the implicit broadcasting of binary ops
// ([R, C] - [R, 1] + [1, C]).
// RUN: phobos-run %s --interpret --init X=iota --print | FileCheck %s

kernel broadcast(X: tensor<f32>[2, 3], Rows: tensor<f32>[2, 3], Cols: tensor<f32>[2, 3],
                 Vec: tensor<f32>[2, 3], Mixed: tensor<f32>[2, 3], Typed: tensor<f32>[2, 3],
                 Scalar: tensor<i32>[2, 3]) {
    let x = X[0 :+ 2, 0 :+ 3]                  // [0, 1, 2; 3, 4, 5]
    Rows[0 :+ 2, 0 :+ 3] = rowsum(x)           // [2, 1] -> [2, 3]
    Cols[0 :+ 2, 0 :+ 3] = colsum(x)           // [1, 3] -> [2, 3]
    Vec[0 :+ 2, 0 :+ 3] = X[1, 0 :+ 3]         // [3] -> [2, 3]
    Mixed[0 :+ 2, 0 :+ 3] = x - rowmax(x) + colsum(x) * 10.0
    let t: tile<f32>[2, 3] = colmin(x)         // typed declaration broadcasts
    Typed[0 :+ 2, 0 :+ 3] = t
    Scalar[0 :+ 2, 0 :+ 3] = 4
}

// CHECK: Rows = [3, 3, 3; 12, 12, 12]
// CHECK-NEXT: Cols = [3, 5, 7; 3, 5, 7]
// CHECK-NEXT: Vec = [3, 4, 5; 3, 4, 5]
// CHECK-NEXT: Mixed = [28, 49, 70; 28, 49, 70]
// CHECK-NEXT: Typed = [0, 1, 2; 0, 1, 2]
// CHECK-NEXT: Scalar = [4, 4, 4; 4, 4, 4]
