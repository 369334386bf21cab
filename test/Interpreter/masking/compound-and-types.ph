// A compound assignment to a slice is a masked load, the op and a masked
// store: elements outside keep their value. Masked elements read as zero
// in every element type (0 for integers, false for bool, +0 for halves).
// RUN: phobos-run %s --interpret --dim N=5 --init Acc=7 --init I=iota --init H=iota --init B=1 --init OutI=7 --init OutH=7 --init OutB=1 --print | FileCheck %s

kernel compound(Acc: tensor<f32>[N], I: tensor<i32>[N], H: tensor<f16>[N], B: tensor<bool>[N],
                OutI: tensor<i32>[8], OutH: tensor<f16>[8], OutB: tensor<bool>[8]) {
    Acc[3 :+ 4] += 1.0                         // Acc[3], Acc[4] only
    Acc[-2 :+ 3] *= 2.0                        // Acc[0] only
    OutI[0 :+ 8] = I[2 :+ 8] - 1               // I[7..9] read 0
    OutH[0 :+ 8] = H[-3 :+ 8] + f16(0.5)       // H[-3..-1] read 0
    OutB[0 :+ 8] = B[1 :+ 8]                   // B[5..8] read false
}

// CHECK: Acc = [14, 7, 7, 8, 8]
// CHECK-NEXT: OutI = [1, 2, 3, -1, -1, -1, -1, -1]
// CHECK-NEXT: OutH = [0.5, 0.5, 0.5, 0.5, 1.5, 2.5, 3.5, 4.5]
// CHECK-NEXT: OutB = [1, 1, 1, 1, 0, 0, 0, 0]
