// Kernels whose names (or --reference) pick a reference whose tensors they
// do not have in the shapes it reads.

// The gla reference reads rank-3 tensors.
kernel gla_chunk(Q: tensor<f32>[N], K: tensor<f32>[N], V: tensor<f32>[N], G: tensor<f32>[N], O: tensor<f32>[N]) {
    let b = ctx.block.x * 16
    O[b :+ 16] = Q[b :+ 16] + K[b :+ 16] + V[b :+ 16] + G[b :+ 16]
}

// B is [N, K], where the gemm reference reads [K, N].
kernel sgemm(A: tensor<f32>[M, K], B: tensor<f32>[N, K], C: tensor<f32>[M, N], alpha: f32, beta: f32) {
    C[0, 0] = A[0, 0] * B[0, 0] * alpha + beta
}

// W has the wrong length for the layer norm reference.
kernel layernorm(X: tensor<f32>[M, N], W: tensor<f32>[M], B: tensor<f32>[N], Y: tensor<f32>[M, N], eps: f32) {
    Y[0, 0] = X[0, 0] * W[0] + B[0] + eps
}

// The softmax reference reads numbers, not bools.
kernel softmax(X: tensor<bool>[M, N], Y: tensor<f32>[M, N]) {
    Y[0, 0] = where(X[0, 0], 1.0, 0.0)
}

// No scalar alpha.
kernel saxpy(x: tensor<f32>[N], y: tensor<f32>[N], out: tensor<f32>[N]) {
    out[0] = x[0] + y[0]
}
