// CTA b writes the 64 elements from b * 48: neighbours overlap on 16, which
// the race check reports (json-writes.test, browser.test).
kernel overlap(X: tensor<f32>[N], Y: tensor<f32>[N]) {
    let b = ctx.block.x
    Y[b * 48 :+ 64] = X[b * 48 :+ 64] * 2.0
}
