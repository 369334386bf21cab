// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-group-blocks))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-group-blocks{group-size=1}))' --split-input-file | FileCheck %s --check-prefix=OFF

// A GEMM's grid (A's rows from block.x, B's columns from block.y) runs in
// groups of 8 tile rows (BlockIdOp::groupedIndex).
// CHECK-LABEL: phobos.kernel @gemm
// CHECK: %[[X:.*]] = phobos.block_id x group 8
// CHECK: %[[Y:.*]] = phobos.block_id y group 8
// CHECK: arith.muli %[[X]]
// CHECK: arith.muli %[[Y]]
// OFF-LABEL: phobos.kernel @gemm
// OFF-NOT: group
// OFF: phobos.return
phobos.kernel @gemm(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>,
                    %C: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %bx = phobos.block_id x
  %by = phobos.block_id y
  %m0 = arith.muli %bx, %c64 : i32
  %n0 = arith.muli %by, %c64 : i32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %r = scf.for %kt = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %a = phobos.load %A[%m0, %kt] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
    %b = phobos.load %B[%kt, %n0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32>
    %d = phobos.dot %a, %b, %acc : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
    scf.yield %d : !phobos.tile<64x64xf32>
  }
  phobos.store %r, %C[%m0, %n0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Attention's grid: Q's rows depend on both axes (query block and head),
// K's on the head only; x-fastest order already shares K and V. Untouched.
// CHECK-LABEL: phobos.kernel @attention
// CHECK-NOT: group
// CHECK: phobos.return
phobos.kernel @attention(%Q: !phobos.tensor<?x?xf32>, %K: !phobos.tensor<?x?xf32>,
                         %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c4096 = arith.constant 4096 : i32
  %zero = arith.constant 0.0 : f32
  %bx = phobos.block_id x
  %by = phobos.block_id y
  %row = arith.muli %by, %c4096 : i32
  %q0 = arith.muli %bx, %c64 : i32
  %r0 = arith.addi %row, %q0 : i32
  %n = phobos.dim %K[0] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %r = scf.for %kb = %c0 to %n step %c64 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %q = phobos.load %Q[%r0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x64xf32>
    %kr = arith.addi %row, %kb : i32
    %k = phobos.load %K[%kr, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x64xf32>
    %s = phobos.dot %q, %k, %acc transpose_b : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
    scf.yield %s : !phobos.tile<64x64xf32>
  }
  phobos.store %r, %O[%r0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A dot outside any loop (one K step) is not a GEMM's K loop: untouched.
// CHECK-LABEL: phobos.kernel @single_dot
// CHECK-NOT: group
// CHECK: phobos.return
phobos.kernel @single_dot(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>,
                          %C: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %bx = phobos.block_id x
  %by = phobos.block_id y
  %m0 = arith.muli %bx, %c64 : i32
  %n0 = arith.muli %by, %c64 : i32
  %a = phobos.load %A[%m0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
  %b = phobos.load %B[%c0, %n0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32>
  %d = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
  phobos.store %d, %C[%m0, %n0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
