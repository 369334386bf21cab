// Slices that start before 0: the elements at negative indices read as zero
// and are not stored; the rest of the slice is an ordinary access.
// RUN: phobos-run %s --interpret --dim N=6 --scalar s=-2 --init A=iota --init Load=7 --init Store=7 --init Both=7 --init Wide=7 --print | FileCheck %s
// RUN: phobos-run %s --interpret --dim N=6 --scalar s=-5 --init A=iota --init Load=7 --init Store=7 --init Both=7 --init Wide=7 --print | FileCheck %s --check-prefix=FAR

kernel negative(A: tensor<f32>[N], Load: tensor<f32>[4], Store: tensor<f32>[N],
                Both: tensor<f32>[N], Wide: tensor<f32>[N], s: i32) {
    // A masked load, stored in range: A[-2], A[-1] read 0.
    Load[0 :+ 4] = A[s :+ 4] + 0.5
    // An in-range value, a masked store: Store[-2], Store[-1] are skipped.
    Store[s :+ 4] = f32(arange(4)) + 100.0
    // Both masked: Both[i] = A[i] * 10 for the indices inside.
    Both[s :+ 4] = A[s :+ 4] * 10.0
    // Reaching past both ends at once: 8 elements from -1 of 6.
    Wide[-1 :+ 8] = A[-1 :+ 8] + 1.0
}

// CHECK: Load = [0.5, 0.5, 0.5, 1.5]
// CHECK-NEXT: Store = [102, 103, 7, 7, 7, 7]
// CHECK-NEXT: Both = [0, 10, 7, 7, 7, 7]
// CHECK-NEXT: Wide = [1, 2, 3, 4, 5, 6]

// FAR: Load = [0.5, 0.5, 0.5, 0.5]
// FAR-NEXT: Store = [7, 7, 7, 7, 7, 7]
// FAR-NEXT: Both = [7, 7, 7, 7, 7, 7]
// FAR-NEXT: Wide = [1, 2, 3, 4, 5, 6]
