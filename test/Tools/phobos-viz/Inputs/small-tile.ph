// A 16 x 16 f32 tile over two warps (test/Tools/phobos-viz/json-layouts.test):
// its default blocked layout holds each element once, in a pattern small
// enough to compute by hand.
@launch(64)
kernel copy16(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
    Y[0 :+ 16, 0 :+ 16] = X[0 :+ 16, 0 :+ 16]
}

// The same kernel on a tile of 4 rows: the layout's 16 rows hold each
// element four times.
@launch(64)
kernel copy4(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
    Y[0 :+ 4, 0 :+ 16] = X[0 :+ 4, 0 :+ 16]
}
