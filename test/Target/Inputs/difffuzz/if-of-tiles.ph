// Seed 1430 of the differential fuzzer (2026-11-30), reduced: an `if`
// whose branches only assign tiles became an arith.select, which the GPU
// lowering did not know ("failed to legalize unresolved materialization"),
// or whose operands layout assignment gave different layouts ("arith.select
// op failed to verify").
kernel if_of_tiles(n_0: tensor<f32>[N], sf_4: f32, out_0: tensor<f16>[N]) {
    let base = ctx.block.x * 128
    var v1: tile<f32>[128] = n_0[base :+ 128]
    let t2: tile<f32>[128] = (-tmax((base + arange(128)), 1.0))
    var v3: tile<f32>[128] = t2
    if (0.0 <= sf_4) {
        v3 = t2
    } else {
        v3 = v1
    }
    out_0[base :+ 128] = (v1 + t2 + v3)
}
