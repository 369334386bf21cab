// The ragged last CTA of a grid: N = 10 with B = 4 gives ceil(10 / 4) = 3
// CTAs, and the last one's slices cover 8..11, of which 10 and 11 are masked.
// In 2-D, M = 5, N = 7 with 2 x 4 tiles gives a (3, 2) grid whose last row and
// column of CTAs are ragged. The CTAs run on several threads and on one.
// RUN: phobos-run %s --interpret --kernel ragged1d --dim N=10 --init A=iota --init Out=7 --init Part=7 --print | FileCheck %s --check-prefix=ONE
// RUN: phobos-run %s --interpret --kernel ragged1d --dim N=10 --init A=iota --init Out=7 --init Part=7 --cpu-threads 1 --print | FileCheck %s --check-prefix=ONE
// RUN: phobos-run %s --interpret --kernel ragged2d --dim M=5 --dim N=7 --init A=iota --init Out=7 --init Count=7 --print | FileCheck %s --check-prefix=TWO
// RUN: phobos-run %s --interpret --kernel ragged2d --dim M=5 --dim N=7 --init A=iota --init Out=7 --init Count=7 --cpu-threads 3 --print | FileCheck %s --check-prefix=TWO

@autotune(B in [4])
kernel ragged1d(A: tensor<f32>[N], Out: tensor<f32>[N], Part: tensor<f32>[3, B]) {
    let base = ctx.block.x * B
    let x = A[base :+ B]
    Out[base :+ B] = x * 2.0 + 1.0
    // Each CTA's loaded tile, masked zeros included.
    Part[ctx.block.x, 0 :+ B] = x
}

// ONE: ragged1d [B=4] interpreter grid (3,1,1) N=10
// ONE-NEXT: Out = [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]
// ONE-NEXT: Part = [0, 1, 2, 3; 4, 5, 6, 7; 8, 9, 0, 0]

@autotune(BM in [2], BN in [4])
kernel ragged2d(A: tensor<i32>[M, N], Out: tensor<i32>[M, N], Count: tensor<i32>[3, 2]) {
    let row = ctx.block.x * BM
    let col = ctx.block.y * BN
    let a = A[row :+ BM, col :+ BN]
    Out[row :+ BM, col :+ BN] = a * 10 + ctx.block.x + 100 * ctx.block.y
    // How many elements of the tile are inside: the masked ones read 0,
    // so count the nonzero iota values (plus A[0, 0] = 0 itself).
    let inside = where(a != 0, 1, 0)
    Count[ctx.block.x, ctx.block.y] = 0
    Count[ctx.block.x :+ 1, ctx.block.y :+ 1] += rowsum(colsum(inside))
}

// TWO: ragged2d [BM=2,BN=4] interpreter grid (3,2,1) M=5 N=7
// TWO-NEXT: Out = [0, 10, 20, 30, 140, 150, 160; 70, 80, 90, 100, 210, 220, 230; 141, 151, 161, 171, 281, 291, 301; 211, 221, 231, 241, 351, 361, 371; 282, 292, 302, 312, 422, 432, 442]
// TWO-NEXT: Count = [7, 6; 8, 6; 4, 3]
