// Element-wise ops whose operands both broadcast: [R, 1] op [1, C] and
// [R, 1] op [C] give [R, C], on floats, integers and booleans (comparisons,
// logic, where). test/Target/interpreter-programs.test compiles this (and
// every other interpreter program) for the GPU.
// RUN: phobos-run %s --interpret --init X=iota --print | FileCheck %s

kernel two_sided(X: tensor<f32>[2, 3], Outer: tensor<f32>[2, 3], Sum: tensor<f32>[2, 3],
                 Index: tensor<i32>[2, 3], Lower: tensor<bool>[2, 3], Mask: tensor<f32>[2, 3]) {
    let x = X[0 :+ 2, 0 :+ 3]                  // [0, 1, 2; 3, 4, 5]
    let col = rowsum(x)                        // [2, 1]: [3; 12]
    let row = colmax(x)                        // [1, 3]: [3, 4, 5]
    Outer[0 :+ 2, 0 :+ 3] = col * row          // [R, 1] * [1, C]
    Sum[0 :+ 2, 0 :+ 3] = col + X[1, 0 :+ 3]   // [R, 1] + [C]
    let rows = reshape(arange(2), 2, 1)        // [0; 1]
    let cols = arange(3)                       // [0, 1, 2]
    Index[0 :+ 2, 0 :+ 3] = rows * 10 + cols   // integers, [R, 1] op [C]
    let lower = reshape(cols, 1, 3) <= rows    // [1, C] <= [R, 1]
    Lower[0 :+ 2, 0 :+ 3] = lower
    let odd = rows == 1                        // [R, 1] bool
    let first = cols == 0                      // [C] bool
    Mask[0 :+ 2, 0 :+ 3] = where(odd || first, col, row)
}

// CHECK: Outer = [9, 12, 15; 36, 48, 60]
// CHECK-NEXT: Sum = [6, 7, 8; 15, 16, 17]
// CHECK-NEXT: Index = [0, 1, 2; 10, 11, 12]
// CHECK-NEXT: Lower = [1, 0, 0; 1, 1, 0]
// CHECK-NEXT: Mask = [3, 4, 5; 12, 12, 12]
