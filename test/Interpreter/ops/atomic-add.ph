// atomic_add: every CTA adds its row of X into one of G partial rows, and
// counts its visits; no update is lost however the CTAs interleave (the
// interpreter runs them on several threads). Masked columns are not added.
// RUN: phobos-run %s --interpret --cpu-threads 4 --grid 8 --dim M=8 --dim N=5 --dim G=3 --init X=iota --init DW=0 --init Count=0 --print | FileCheck %s

@autotune(B in [8])
kernel partial_sums(X: tensor<f32>[M, N], DW: tensor<f32>[G, N], Count: tensor<i32>[G]) {
    let row = ctx.block.x
    let g = row % G
    atomic_add(DW[g :+ 1, 0 :+ B], X[row :+ 1, 0 :+ B])
    atomic_add(Count[g], 1)
}

// Rows 0, 3, 6 go to group 0; 1, 4, 7 to group 1; 2, 5 to group 2.
// CHECK: DW = [45, 48, 51, 54, 57; 60, 63, 66, 69, 72; 35, 37, 39, 41, 43]
// CHECK-NEXT: Count = [3, 3, 2]
