// sgemm: C = alpha * (A @ B) + beta * C with A: [M, K], B: [K, N], C: [M, N], all f32, row-major,
// computed with exact f32 FMAs (no tensor cores). One CTA per TILE_M x TILE_N tile of C.
// M, N and K may all be ragged: masked loads read 0, which adds nothing to the products, and the
// masked store leaves C outside [M, N] alone.
// Reference (float64): C = alpha * (A.astype(float64) @ B.astype(float64)) + beta * C.astype(float64).
// STAGES = 3 pipelines the loads (two K steps ahead, A through registers); 1 loads each K step in
// the step itself. THREADS = 128 gives each thread twice the accumulators of 256: the fastest on the
// H200 is 128 x 128 x 8, 3 stages, 128 threads (docs/benchmarks.md, fourteenth session).
@autotune(TILE_M in [64, 128], TILE_N in [64, 128], TILE_K in [16, 8, 32], STAGES in [3, 1], THREADS in [256, 128])
@launch(THREADS)
@pipeline(STAGES)
kernel sgemm(A: tensor<f32>[M, K],
             B: tensor<f32>[K, N],
             C: tensor<f32>[M, N],
             alpha: f32,
             beta: f32) {
    let m0 = ctx.block.x * TILE_M
    let n0 = ctx.block.y * TILE_N
    var acc: tile<f32>[TILE_M, TILE_N] = 0.0
    for kt in range(0, K, TILE_K) {
        let a = A[m0 :+ TILE_M, kt :+ TILE_K]
        let b = B[kt :+ TILE_K, n0 :+ TILE_N]
        acc += dot(a, b)
    }
    let c_old = C[m0 :+ TILE_M, n0 :+ TILE_N]
    C[m0 :+ TILE_M, n0 :+ TILE_N] = alpha * acc + beta * c_old
}
