// A 4 x 4 tile over a 5 x 6 tensor, read from one row and one column
// before the CTA's corner: the slices reach past the tensor on every side,
// so their masks leave elements alone above, left, below and right of it
// (json-traffic.test, browser.test).
@launch(32)
kernel ragged(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
    let i = ctx.block.y * 4
    let j = ctx.block.x * 4
    Y[i :+ 4, j :+ 4] = X[i - 1 :+ 4, j - 1 :+ 4]
}
