// A 4x4 tile over a 3x5 tensor, placed so that it runs past the end of axis
// 1 (columns), of axis 0 (rows), of both, or starts before 0 on both: masked
// elements read zero (Copy gets A + 1000 inside, 1000 outside) and are not
// written (Store keeps 7 outside the tile and outside the tensor).
// RUN: phobos-run %s --interpret --dim M=3 --dim N=5 --scalar r=0 --scalar c=2 --init A=iota --init Copy=7 --init Store=7 --init Sum=7 --print | FileCheck %s --check-prefix=COLS
// RUN: phobos-run %s --interpret --dim M=3 --dim N=5 --scalar r=1 --scalar c=0 --init A=iota --init Copy=7 --init Store=7 --init Sum=7 --print | FileCheck %s --check-prefix=ROWS
// RUN: phobos-run %s --interpret --dim M=3 --dim N=5 --scalar r=2 --scalar c=3 --init A=iota --init Copy=7 --init Store=7 --init Sum=7 --print | FileCheck %s --check-prefix=BOTH
// RUN: phobos-run %s --interpret --dim M=3 --dim N=5 --scalar r=-2 --scalar c=-1 --init A=iota --init Copy=7 --init Store=7 --init Sum=7 --print | FileCheck %s --check-prefix=BEFORE

kernel past_end(A: tensor<f32>[M, N], Copy: tensor<f32>[4, 4], Store: tensor<f32>[M, N],
                Sum: tensor<f32>[2], r: i32, c: i32) {
    let t = A[r :+ 4, c :+ 4]
    Copy[0 :+ 4, 0 :+ 4] = t + 1000.0
    Store[r :+ 4, c :+ 4] = t + 0.5
    // Masked zeros are right for sums: the sum of the elements inside.
    Sum[0] = 0.0
    Sum[0 :+ 1] += reshape(rowsum(colsum(t)), 1)
    Sum[1] = f32(M * N)
}

// A = [0, 1, 2, 3, 4; 5, 6, 7, 8, 9; 10, 11, 12, 13, 14]

// COLS: Copy = [1002, 1003, 1004, 1000; 1007, 1008, 1009, 1000; 1012, 1013, 1014, 1000; 1000, 1000, 1000, 1000]
// COLS-NEXT: Store = [7, 7, 2.5, 3.5, 4.5; 7, 7, 7.5, 8.5, 9.5; 7, 7, 12.5, 13.5, 14.5]
// COLS-NEXT: Sum = [72, 15]

// ROWS: Copy = [1005, 1006, 1007, 1008; 1010, 1011, 1012, 1013; 1000, 1000, 1000, 1000; 1000, 1000, 1000, 1000]
// ROWS-NEXT: Store = [7, 7, 7, 7, 7; 5.5, 6.5, 7.5, 8.5, 7; 10.5, 11.5, 12.5, 13.5, 7]
// ROWS-NEXT: Sum = [72, 15]

// BOTH: Copy = [1013, 1014, 1000, 1000; 1000, 1000, 1000, 1000; 1000, 1000, 1000, 1000; 1000, 1000, 1000, 1000]
// BOTH-NEXT: Store = [7, 7, 7, 7, 7; 7, 7, 7, 7, 7; 7, 7, 7, 13.5, 14.5]
// BOTH-NEXT: Sum = [27, 15]

// BEFORE: Copy = [1000, 1000, 1000, 1000; 1000, 1000, 1000, 1000; 1000, 1000, 1001, 1002; 1000, 1005, 1006, 1007]
// BEFORE-NEXT: Store = [0.5, 1.5, 2.5, 7, 7; 5.5, 6.5, 7.5, 7, 7; 7, 7, 7, 7, 7]
// BEFORE-NEXT: Sum = [21, 15]
