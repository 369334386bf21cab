// A point index outside its axis masks the whole access: the tile reads as
// zero and nothing is stored, even where the slice axes are in range.
// RUN: phobos-run %s --interpret --dim M=3 --dim N=4 --scalar p=1 --init A=iota --init Row=7 --init Store=7 --print | FileCheck %s --check-prefix=INSIDE
// RUN: phobos-run %s --interpret --dim M=3 --dim N=4 --scalar p=3 --init A=iota --init Row=7 --init Store=7 --print | FileCheck %s --check-prefix=ROWPAST
// RUN: phobos-run %s --interpret --dim M=3 --dim N=4 --scalar p=-1 --init A=iota --init Row=7 --init Store=7 --print | FileCheck %s --check-prefix=NEG

kernel point(A: tensor<f32>[M, N], Row: tensor<f32>[2, 4], Store: tensor<f32>[M, N], p: i32) {
    Row[0, 0 :+ 4] = A[p, 0 :+ 4] + 0.5        // a point on axis 0
    Row[1, 0 :+ 4] = A[0 :+ 4, p] + 0.5        // a point on axis 1 (p < N)
    Store[p, 0 :+ 4] = f32(arange(4)) + 100.0
    Store[0 :+ 3, p] = f32(arange(3)) + 200.0
}

// A = [0, 1, 2, 3; 4, 5, 6, 7; 8, 9, 10, 11]

// INSIDE: Row = [4.5, 5.5, 6.5, 7.5; 1.5, 5.5, 9.5, 0.5]
// INSIDE-NEXT: Store = [7, 200, 7, 7; 100, 201, 102, 103; 7, 202, 7, 7]

// p = 3 is past the rows (M = 3): the whole row access is masked; it is
// still a column (N = 4), so the column accesses go ahead.
// ROWPAST: Row = [0.5, 0.5, 0.5, 0.5; 3.5, 7.5, 11.5, 0.5]
// ROWPAST-NEXT: Store = [7, 7, 7, 200; 7, 7, 7, 201; 7, 7, 7, 202]

// p = -1 is outside both axes: everything is masked.
// NEG: Row = [0.5, 0.5, 0.5, 0.5; 0.5, 0.5, 0.5, 0.5]
// NEG-NEXT: Store = [7, 7, 7, 7; 7, 7, 7, 7; 7, 7, 7, 7]
