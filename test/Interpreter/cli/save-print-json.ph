// --save DIR writes every tensor parameter before (NAME.in.npy) and after
// (NAME.out.npy) the run, in its own dtype except bf16, which is saved as
// f32 ('<f4'); --print prints only the tensors the kernel writes; --json ends
// with a PHOBOS_RESULT line. A tensor the kernel only writes starts out
// poisoned (NaN), so elements it never stores show up.
// RUN: rm -rf %t && phobos-run %s --interpret --dim N=3 --init X=iota --save %t --print --json | FileCheck %s
// RUN: FileCheck %s --input-file %t/X.in.npy --check-prefix=XIN
// RUN: FileCheck %s --input-file %t/Y.out.npy --check-prefix=YOUT
// RUN: FileCheck %s --input-file %t/B.out.npy --check-prefix=BOUT
// RUN: FileCheck %s --input-file %t/I.out.npy --check-prefix=IOUT
// RUN: ls %t | FileCheck %s --check-prefix=FILES

@autotune(BLOCK in [2])
kernel save(X: tensor<f32>[N], Y: tensor<f16>[N], B: tensor<bf16>[2, N], I: tensor<i64>[N],
            Partial: tensor<f32>[3], Read: tensor<f32>[2]) {
    let base = ctx.block.x * BLOCK
    let x = X[base :+ BLOCK]
    Y[base :+ BLOCK] = x + 0.5
    B[0, base :+ BLOCK] = x * 0.1
    B[1, base :+ BLOCK] = x
    I[base :+ BLOCK] = i64(arange(BLOCK) + base) * 4294967296
    Partial[1] = Read[0] * 0.0 + 4.0
}

// CHECK: save [BLOCK=2] interpreter grid (2,1,1) N=3
// CHECK-NEXT: Y = [0.5, 1.5, 2.5]
// CHECK-NEXT: B = [0, 0.100098, 0.200195; 0, 1, 2]
// CHECK-NEXT: I = [0, 4294967296, 8589934592]
// CHECK-NEXT: Partial = [nan, 4, nan]
// CHECK-NEXT: PHOBOS_RESULT {"backend":"interpreter","check":"skipped","dims":{"N":3},"grid":[2,1,1],"kernel":"save",{{.*}}"variant":{"BLOCK":2}}

// XIN: {'descr': '<f4', 'fortran_order': False, 'shape': (3, ), }
// YOUT: {'descr': '<f2', 'fortran_order': False, 'shape': (3, ), }
// BOUT: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, ), }
// IOUT: {'descr': '<i8', 'fortran_order': False, 'shape': (3, ), }

// FILES: B.in.npy
// FILES-NEXT: B.out.npy
// FILES-NEXT: I.in.npy
// FILES-NEXT: I.out.npy
// FILES-NEXT: Partial.in.npy
// FILES-NEXT: Partial.out.npy
// FILES-NEXT: Read.in.npy
// FILES-NEXT: Read.out.npy
// FILES-NEXT: X.in.npy
// FILES-NEXT: X.out.npy
// FILES-NEXT: Y.in.npy
// FILES-NEXT: Y.out.npy
