// A pipelined K loop over an i64 range (issue 48): tile-pipeline computes
// the ring in i64 and gives the buffers i32 slots.
@pipeline(3)
kernel k(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N], n: i64) {
    let m0 = ctx.block.x * 64
    let n0 = ctx.block.y * 64
    var acc: tile<f32>[64, 64] = 0.0
    for kt in range(0, n, 16) {
        let a = A[m0 :+ 64, i32(kt) :+ 16]
        let b = B[i32(kt) :+ 16, n0 :+ 64]
        acc += dot(a, b)
    }
    C[m0 :+ 64, n0 :+ 64] = acc
}
