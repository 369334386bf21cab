// In-place kernels whose statements read what other threads of the CTA
// write (docs/language.md, "The memory model"): a statement reads its
// whole right-hand side before it stores and sees the CTA's earlier
// stores, on the interpreter and on the GPU alike. in-place.test checks
// the interpreter's answers at small sizes; bench/memory_model_gpu.py
// compares the GPU with the interpreter at the large ones.

// Issue 46's shift: the first statement's read and store overlap, and the
// second reads what the first stored.
@autotune(B in [4096, 8])
kernel shift(X: tensor<f32>[N], s: i32) {
    X[0 :+ B] = X[s :+ B] * 2.0
    X[s :+ B] += X[0 :+ B]
}

// Block by block, each block becomes itself plus the next one, which the
// next iteration then overwrites (a write after a read of another
// iteration).
@autotune(B in [256, 4])
kernel slide(X: tensor<f32>[N]) {
    for i in range(0, N - B, B) {
        X[i :+ B] = X[i :+ B] + X[i + B :+ B]
    }
}

// A square transposed in place: the value of element [j, i] goes to
// [i, j], through another thread.
@autotune(B in [64, 4])
kernel transpose_square(X: tensor<f32>[B, B]) {
    X[0 :+ B, 0 :+ B] = transpose(X[0 :+ B, 0 :+ B])
}

// A counter every thread reads and one thread writes, n times.
kernel count(C: tensor<f32>[N], n: i32) {
    for i in range(0, n) {
        C[0] = C[0] + 1.0
    }
}
