// Seeds 3874 and 4220 of the differential fuzzer (2026-11-30), reduced: on
// the H200, ptxas (CUDA 13.0, -O3, sm_90) fused max(max(-b, x), a) into a
// three-input VIMNMX3 without the negation, so the GPU wrote max(a, b, x)
// (1, not 5, for a = 1, b = -5). The PTX writes negations as not + add 1.
kernel neg_in_max(a: i32, b: i32, out: tensor<i32>[M, N]) {
    let row = ctx.block.x * 64
    let col = ctx.block.y * 16
    out[row :+ 64, col :+ 16] = tmax(a, tmax((-b), reshape(row + arange(64), 64, 1)))
}
