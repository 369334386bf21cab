// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Seed 003: listing BC under @cluster too turns the key loop into a cluster
// loop, which is accepted only around an accumulator; this one carries the
// online softmax's m, l and acc.

// CHECK: reject-carried-state.ph:[[# @LINE + 14]]:5: error: a cluster loop (its step BC is an @cluster name) must carry only an accumulator: a tile that starts at zero, is summed over the loop (acc += ...) and is stored once as C[..] = acc or C[..] = alpha * acc + beta * c_old; this one carries 3 values
// flash_attention: O = softmax(scale * Q @ K^T) @ V for one head, non-causal; Q, O: [Nq, D], K, V: [Nk, D],
// f32, online softmax. On a cluster each node owns BR-row super-tiles of Q and O and reads all of K and V;
// on one GPU @cluster is ignored. Nq and Nk may be ragged on one GPU (keys past Nk get weight 0); the
// cluster scheduler needs Nq to be a multiple of the super-tile. D must be 64.
// Reference (float64): S = scale * Q @ K^T; P = exp(S - S.max(-1)); O = (P @ V) / P.sum(-1).
@cluster(BR in [1024, 4096], BC in [1024, 4096])
@autotune(D in [64], BR in [32, 128], BC in [32, 128])
kernel flash_attention(Q: tensor<f32>[Nq, D], K: tensor<f32>[Nk, D], V: tensor<f32>[Nk, D], O: tensor<f32>[Nq, D], scale: f32) {
    let row = ctx.block.x * BR
    let q = Q[row :+ BR, :]
    var m: tile<f32>[BR, 1] = -1.0e30
    var l: tile<f32>[BR, 1] = 0.0
    var acc: tile<f32>[BR, D] = 0.0
    for kb in range(0, Nk, BC) {
        let k = K[kb :+ BC, :]
        let v = V[kb :+ BC, :]
        let cols = kb + arange(BC)
        let s = where(cols < Nk, scale * dot_t(q, k), -1.0e30)
        let m_new = tmax(m, rowmax(s))
        let corr = exp(m - m_new)
        let p = exp(s - m_new)
        l = corr * l + rowsum(p)
        acc = corr * acc + dot(p, v)
        m = m_new
    }
    O[row :+ BR, :] = acc / l
}
