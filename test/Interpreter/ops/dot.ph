// dot(a, b) = a @ b and dot_t(a, b) = a @ b^T on small integer-valued tiles
// (exact in every precision): f32, f16 and f64 operands, mixed f16 x bf16
// (promoted to f32), and a dot accumulated in a loop.
// RUN: phobos-run %s --interpret --init A=iota --init B=iota --init C=iota --init H=iota --print | FileCheck %s

kernel dot(A: tensor<f32>[2, 3], B: tensor<f32>[3, 2], C: tensor<f32>[2, 3],
           H: tensor<f16>[3, 2], Dot: tensor<f32>[2, 2], DotT: tensor<f32>[2, 2],
           Half: tensor<f32>[2, 2], Mixed: tensor<f32>[2, 2], Wide: tensor<f64>[2, 2],
           Square: tensor<f32>[3, 3], Acc: tensor<f32>[2, 2]) {
    let a = A[0 :+ 2, 0 :+ 3]                  // [0, 1, 2; 3, 4, 5]
    let b = B[0 :+ 3, 0 :+ 2]                  // [0, 1; 2, 3; 4, 5]
    let c = C[0 :+ 2, 0 :+ 3]                  // [0, 1, 2; 3, 4, 5]
    Dot[0 :+ 2, 0 :+ 2] = dot(a, b)
    DotT[0 :+ 2, 0 :+ 2] = dot_t(a, c)
    let h = H[0 :+ 3, 0 :+ 2]
    Half[0 :+ 2, 0 :+ 2] = dot(f16(a), h)
    Mixed[0 :+ 2, 0 :+ 2] = dot(f16(a), bf16(b))
    Wide[0 :+ 2, 0 :+ 2] = dot(f64(a), b)
    // [3, 2] x [2, 3]: a^T-shaped product.
    Square[0 :+ 3, 0 :+ 3] = dot(b, c)
    // The same product as three rank-1 updates, carried through a loop.
    var acc: tile<f32>[2, 2] = 0.0
    for k in range(0, 3) {
        acc += dot(A[0 :+ 2, k :+ 1], B[k :+ 1, 0 :+ 2])
    }
    Acc[0 :+ 2, 0 :+ 2] = acc
}

// CHECK: Dot = [10, 13; 28, 40]
// CHECK-NEXT: DotT = [5, 14; 14, 50]
// CHECK-NEXT: Half = [10, 13; 28, 40]
// CHECK-NEXT: Mixed = [10, 13; 28, 40]
// CHECK-NEXT: Wide = [10, 13; 28, 40]
// CHECK-NEXT: Square = [3, 4, 5; 9, 14, 19; 15, 24, 33]
// CHECK-NEXT: Acc = [10, 13; 28, 40]
