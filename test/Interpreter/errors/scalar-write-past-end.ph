// A scalar element write outside its tensor is a run-time error at the
// assignment (on the GPU nothing would be stored); here only the ragged last
// CTA of three writes past the end.
// RUN: not phobos-run %s --interpret --kernel last_cta --dim N=10 2>&1 | FileCheck %s --check-prefix=LAST
// RUN: not phobos-run %s --interpret --kernel in_loop --dim M=2 --dim N=3 2>&1 | FileCheck %s --check-prefix=LOOP

@autotune(B in [4])
kernel last_cta(A: tensor<f32>[N], Out: tensor<f32>[N]) {
    let base = ctx.block.x * B
    Out[base :+ B] = A[base :+ B]
    Out[base + B - 1] = 1.0
    // LAST: {{.*}}.ph:[[@LINE-1]]:23: error: write of element [11] is outside the tensor of shape [10] (in CTA 2, 0, 0)
    // LAST-NEXT: {{^}}    Out[base + B - 1] = 1.0
}

// A 2-D write in a loop that runs one step too far: the error names the
// whole index.
kernel in_loop(Out: tensor<i32>[M, N]) {
    for j in range(0, N + 1) {
        Out[M - 1, j] = j
        // LOOP: {{.*}}.ph:[[@LINE-1]]:23: error: write of element [1, 3] is outside the tensor of shape [2, 3] (in CTA 0, 0, 0)
    }
}
