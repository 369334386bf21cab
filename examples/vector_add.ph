// add: c[i] = a[i] + b[i] for i in [0, N); a, b, c: f32 vectors of length N.
// N may be ragged (not a multiple of BLOCK): the last block's slice is masked.
// Reference (float64): c = a.astype(float64) + b.astype(float64).
@autotune(BLOCK in [1024])
kernel add(a: tensor<f32>[N], b: tensor<f32>[N], c: tensor<f32>[N]) {
    let base = ctx.block.x * BLOCK
    c[base :+ BLOCK] = a[base :+ BLOCK] + b[base :+ BLOCK]
}
