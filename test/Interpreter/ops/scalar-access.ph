// Scalar element reads and writes (phobos.load_scalar / store_scalar):
// A[i] = x, A[i, j] read and written, compound assignment on one element,
// conversion on store (f32 into f16 rounds, i32 into f32), and dims as values.
// RUN: phobos-run %s --interpret --dim N=5 --init A=iota --init M=iota --init Out=0 --init H=0 --print | FileCheck %s

kernel scalar_access(A: tensor<f32>[N], M: tensor<i32>[3, N], Out: tensor<f32>[6],
                     H: tensor<f16>[2], Idx: tensor<i64>[2]) {
    let last = A[N - 1]                        // 4
    A[0] = last * 10.0
    A[1] += 0.5
    A[N - 1] = A[0] + A[1]                     // read after write: 40 + 1.5
    M[2, N - 1] = M[1, 2] * 100 + N            // 7 * 100 + 5
    M[0, 0] -= 1
    Out[0] = f32(M[2, 3])                      // 13
    Out[1] = M[1, 0]                           // i32 -> f32 implicitly: 5
    Out[2] = f32(N * 3)                        // a dim is an i32 value
    var s = 0.0
    for i in range(0, N) {
        s += A[i]                              // 40 + 1.5 + 2 + 3 + 41.5
    }
    Out[3] = s
    Out[4] = f32(i32(A[1] * 2.0))
    Out[5] = A[2] / 4.0
    H[0] = 0.1                                 // rounds to f16
    H[1] = 65519.0 + A[1] - A[1]               // 65519 -> 65504
    Idx[0] = i64(N) * 1000000000               // 5e9 does not wrap in i64
    Idx[1] = N * 1000000000                    // i32 product wraps, then widens
}

// CHECK: A = [40, 1.5, 2, 3, 41.5]
// CHECK-NEXT: M = [-1, 1, 2, 3, 4; 5, 6, 7, 8, 9; 10, 11, 12, 13, 705]
// CHECK-NEXT: Out = [13, 5, 15, 88, 3, 0.5]
// CHECK-NEXT: H = [0.0999756, 65504]
// CHECK-NEXT: Idx = [5000000000, 705032704]
