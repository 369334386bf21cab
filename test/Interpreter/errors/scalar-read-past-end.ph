// A scalar element read outside its tensor is a run-time error at the
// subscript (on the GPU it would read zero): the CTA, the index and the shape
// are named. Nothing is printed on stdout and the exit status is 1.
// RUN: not phobos-run %s --interpret --kernel past_end --dim N=4 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not phobos-run %s --interpret --kernel past_end --dim N=4 2>/dev/null | count 0
// RUN: not phobos-run %s --interpret --kernel negative --dim M=3 --dim N=4 --scalar j=2 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not phobos-run %s --interpret --kernel every_cta --dim N=8 --grid 4 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: not phobos-run %s --interpret --kernel every_cta --dim N=8 --grid 4 --cpu-threads 1 2>&1 | FileCheck %s --check-prefix=FIRST

kernel past_end(A: tensor<f32>[N], Out: tensor<f32>[N]) {
    let i = N
    Out[0] = A[i] + 1.0
    // PAST: {{.*}}.ph:[[@LINE-1]]:15: error: read of element [4] is outside the tensor of shape [4] (in CTA 0, 0, 0)
    // PAST-NEXT: {{^}}    Out[0] = A[i] + 1.0
    // PAST-NEXT: {{^}}              ^
}

kernel negative(A: tensor<i32>[M, N], Out: tensor<i32>[M, N], j: i32) {
    Out[0, j] = A[j - 3, j]
    // NEG: {{.*}}.ph:[[@LINE-1]]:18: error: read of element [-1, 2] is outside the tensor of shape [3, 4] (in CTA 0, 0, 0)
}

// Every CTA reads past the end; the error reported is the first CTA's,
// however many threads run them.
kernel every_cta(A: tensor<f32>[N], Out: tensor<f32>[N]) {
    let b = ctx.block.x
    Out[b] = A[N + b]
    // FIRST: {{.*}}.ph:[[@LINE-1]]:15: error: read of element [8] is outside the tensor of shape [8] (in CTA 0, 0, 0)
}
