// RUN: phobos-opt %s --convert-tile-to-gpu --split-input-file | FileCheck %s

// A store of 16-bit elements from the accumulator layout: the four lanes of
// a quad trade their element pairs of four fragments in two rounds of
// butterfly shuffles (across lane bit 1, then bit 0), so that each lane
// stores one fragment's eight elements as one 16-byte vector instead of
// four 4-byte stores that each fill half a sector.

#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// CHECK-LABEL: gpu.func @store_f16
// The lane bits that pick what each lane sends.
// CHECK: %[[LANE:.*]] = arith.andi %{{.*}}, %c31_i32 : i32
// CHECK: %[[B2:.*]] = arith.andi %[[LANE]], %c2_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[UP1:.*]] = arith.cmpi ne, %[[B2]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[B1:.*]] = arith.andi %[[LANE]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[UP0:.*]] = arith.cmpi ne, %[[B1]], %{{.*}} : i32
// Fragment pairs as 32-bit words, traded across lane bit 1, then bit 0.
// The block is ordered store by store (EpilogueOrder.h): the loads and
// trades of one 16-byte run, its store, then the next run's.
// CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: %[[S1:.*]] = arith.select %[[UP1]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %[[S1]], %c2_i32{{[_0-9]*}}, %c31_i32{{[_0-9]*}} : i32 -> i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32{{[_0-9]*}}
// CHECK: %[[S0:.*]] = arith.select %[[UP0]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %[[S0]], %c1_i32{{[_0-9]*}}, %c31_i32{{[_0-9]*}} : i32 -> i32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32{{[_0-9]*}}
// Then 16-byte stores of eight f16 (element by element only where the
// vector is not whole and aligned), no pair stores.
// CHECK-NOT: vector<2xf16>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
// CHECK-NOT: vector<2xf16>, !llvm.ptr<1>
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32{{[_0-9]*}}
// CHECK-NOT: vector<2xf16>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
// CHECK-NOT: vector<2xf16>, !llvm.ptr<1>
// CHECK: gpu.return
phobos.kernel @store_f16(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "N"]},
    %C: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %t = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<16x32xf16, #mma>
  phobos.store %t, %C[%c0, %c0] : !phobos.tile<16x32xf16, #mma>, !phobos.tensor<?x?xf16>
  phobos.return
}

// -----

// f32 elements (a quad already writes a whole sector) and fewer than four
// fragments a row keep the per-register pair stores.

#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// CHECK-LABEL: gpu.func @store_f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: gpu.return
phobos.kernel @store_f32(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
    %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %t = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32, #mma>
  phobos.store %t, %C[%c0, %c0] : !phobos.tile<16x32xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// CHECK-LABEL: gpu.func @narrow_f16
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<1>
// CHECK: gpu.return
phobos.kernel @narrow_f16(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "N"]},
    %C: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %t = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<16x16xf16, #mma>
  phobos.store %t, %C[%c0, %c0] : !phobos.tile<16x16xf16, #mma>, !phobos.tensor<?x?xf16>
  phobos.return
}
