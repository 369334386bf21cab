// Kernels for race-check.test: each races between CTAs in one way, but
// `clean` and `adds`.

// Every CTA writes the same 64 elements.
kernel both_write(X: tensor<f32>[N]) {
    X[0 :+ 64] = 1.0
}

// CTA b reads the block CTA b + 1 writes.
kernel shifted(X: tensor<f32>[N]) {
    let b = ctx.block.x
    X[b * 64 :+ 64] = X[(b + 1) * 64 :+ 64] + 1.0
}

// Atomic additions among themselves are ordered.
kernel adds(Y: tensor<f32>[N], Z: tensor<i32>[G]) {
    atomic_add(Y[0 :+ 64], 1.0)
    atomic_add(Z[0], 1)
}

// CTA 0 adds atomically where CTA 1 writes (element by element).
kernel mixed(Y: tensor<f32>[N]) {
    let b = ctx.block.x
    if b == 0 {
        atomic_add(Y[0 :+ 64], 1.0)
    } else {
        Y[b * 32] = 2.0
    }
}

// Each CTA reads and writes its own block, after reading a shared input.
kernel clean(X: tensor<f32>[N], W: tensor<f32>[N]) {
    let b = ctx.block.x
    X[b * 64 :+ 64] = X[b * 64 :+ 64] * W[0 :+ 64]
}

// A @persistent kernel whose tiles all write the first 8 elements: tiles
// run in whichever CTAs the launcher starts, so they race as CTAs would.
@persistent
kernel tiles(X: tensor<f32>[N], Y: tensor<f32>[N]) {
    let b = ctx.block.x
    Y[b * 64 :+ 64] = X[b * 64 :+ 64] * 2.0
    Y[0 :+ 8] = X[b * 64 :+ 8]
}
