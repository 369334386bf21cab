// outer_update: C[i, j] += alpha * x[i] * y[j] where j <= i, C unchanged above the diagonal: a
// masked rank-1 update (as in a triangular factorisation, or a causal mask over absolute
// positions). x: [M], y: [N], C: [M, N] f32; M and N may be ragged.
// Every element-wise op here broadcasts both of its operands: x as a [BM, 1] column against y as
// a [BN] row ([R, 1] op [C]), and the mask from a [BM, 1] row-index column against a [1, BN]
// column-index row ([R, 1] op [1, C]), on integers and on booleans.
// Reference (float64): C + alpha * tril(outer(x, y)) over absolute row and column indices.
@autotune(BM in [32, 64, 128], BN in [64, 32, 128])
kernel outer_update(x: tensor<f32>[M], y: tensor<f32>[N], C: tensor<f32>[M, N], alpha: f32) {
    let r = ctx.block.x * BM
    let c = ctx.block.y * BN
    let xs = reshape(x[r :+ BM], BM, 1)
    let rows = reshape(arange(BM), BM, 1) + r
    let cols = reshape(arange(BN), 1, BN) + c
    let inside = rows < M && cols < N
    let update = alpha * xs * y[c :+ BN]
    C[r :+ BM, c :+ BN] += where(inside && cols <= rows, update, 0.0)
}
