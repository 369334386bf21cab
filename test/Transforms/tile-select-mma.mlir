// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-select-mma))' --split-input-file | FileCheck %s

// Every dot gets a kind: mma_sync (m16n8k16, m16n8k8 for tf32) when the
// operands are f16/bf16, or f32 rounded by a precision, and the shape fits
// the fragments and the CTA's warps; fma otherwise.

// f16 and bf16 operands on tensor cores; with 4 warps a 64x64 result splits
// 2x2 (and 32x32 with K = 32 as well).
// CHECK-LABEL: phobos.kernel @half_operands
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<64x16xbf16>, !phobos.tile<16x64xbf16> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<32x32xf16>, !phobos.tile<32x32xf16>, !phobos.tile<32x32xf32> -> !phobos.tile<32x32xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} transpose_b kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
phobos.kernel @half_operands(%h: f16, %b: bf16, %z: f32) attributes {max_threads = 128 : i32} {
  %a16 = phobos.fill %h : !phobos.tile<64x16xf16>
  %b16 = phobos.fill %h : !phobos.tile<16x64xf16>
  %d0 = phobos.dot %a16, %b16 : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<64x64xf32>
  %abf = phobos.fill %b : !phobos.tile<64x16xbf16>
  %bbf = phobos.fill %b : !phobos.tile<16x64xbf16>
  %d1 = phobos.dot %abf, %bbf : !phobos.tile<64x16xbf16>, !phobos.tile<16x64xbf16> -> !phobos.tile<64x64xf32>
  %sq = phobos.fill %h : !phobos.tile<32x32xf16>
  %acc = phobos.fill %z : !phobos.tile<32x32xf32>
  %d2 = phobos.dot %sq, %sq, %acc : !phobos.tile<32x32xf16>, !phobos.tile<32x32xf16>, !phobos.tile<32x32xf32> -> !phobos.tile<32x32xf32>
  %bt = phobos.fill %h : !phobos.tile<32x16xf16>
  %d3 = phobos.dot %a16, %bt transpose_b : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
  phobos.return
}

// -----

// f32 operands: exact (ieee) dots stay on FMA units; tf32 needs K a
// multiple of 8, f16 and bf16 a multiple of 16.
// CHECK-LABEL: phobos.kernel @f32_operands
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(fma) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(mma_sync) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(mma_sync) : !phobos.tile<64x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(f16) kind(mma_sync) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(bf16) kind(mma_sync) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(f16) kind(fma) : !phobos.tile<64x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(fma) : !phobos.tile<64x4xf32>, !phobos.tile<4x64xf32> -> !phobos.tile<64x64xf32>
phobos.kernel @f32_operands(%x: f32) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %x : !phobos.tile<64x16xf32>
  %b = phobos.fill %x : !phobos.tile<16x64xf32>
  %a8 = phobos.fill %x : !phobos.tile<64x8xf32>
  %b8 = phobos.fill %x : !phobos.tile<8x64xf32>
  %a4 = phobos.fill %x : !phobos.tile<64x4xf32>
  %b4 = phobos.fill %x : !phobos.tile<4x64xf32>
  %d0 = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
  %d1 = phobos.dot %a, %b precision(tf32) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
  %d2 = phobos.dot %a8, %b8 precision(tf32) : !phobos.tile<64x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<64x64xf32>
  %d3 = phobos.dot %a, %b precision(f16) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
  %d4 = phobos.dot %a, %b precision(bf16) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
  %d5 = phobos.dot %a8, %b8 precision(f16) : !phobos.tile<64x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<64x64xf32>
  %d6 = phobos.dot %a4, %b4 precision(tf32) : !phobos.tile<64x4xf32>, !phobos.tile<4x64xf32> -> !phobos.tile<64x64xf32>
  phobos.return
}

// -----

// f64 never runs on tensor cores.
// CHECK-LABEL: phobos.kernel @f64_operands
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(fma) : !phobos.tile<64x16xf64>, !phobos.tile<16x64xf64> -> !phobos.tile<64x64xf64>
phobos.kernel @f64_operands(%x: f64) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %x : !phobos.tile<64x16xf64>
  %b = phobos.fill %x : !phobos.tile<16x64xf64>
  %d = phobos.dot %a, %b : !phobos.tile<64x16xf64>, !phobos.tile<16x64xf64> -> !phobos.tile<64x64xf64>
  phobos.return
}

// -----

// Shapes that do not fit m16n8k16: M = 8 (less than one fragment), K = 8
// for f16, N = 4.
// CHECK-LABEL: phobos.kernel @shapes_that_do_not_fit
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(fma) : !phobos.tile<8x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<8x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(fma) : !phobos.tile<64x8xf16>, !phobos.tile<8x64xf16> -> !phobos.tile<64x64xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(fma) : !phobos.tile<64x16xf16>, !phobos.tile<16x4xf16> -> !phobos.tile<64x4xf32>
phobos.kernel @shapes_that_do_not_fit(%h: f16) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %h : !phobos.tile<8x16xf16>
  %b = phobos.fill %h : !phobos.tile<16x64xf16>
  %d0 = phobos.dot %a, %b : !phobos.tile<8x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<8x64xf32>
  %a8 = phobos.fill %h : !phobos.tile<64x8xf16>
  %b8 = phobos.fill %h : !phobos.tile<8x64xf16>
  %d1 = phobos.dot %a8, %b8 : !phobos.tile<64x8xf16>, !phobos.tile<8x64xf16> -> !phobos.tile<64x64xf32>
  %a16 = phobos.fill %h : !phobos.tile<64x16xf16>
  %b4 = phobos.fill %h : !phobos.tile<16x4xf16>
  %d2 = phobos.dot %a16, %b4 : !phobos.tile<64x16xf16>, !phobos.tile<16x4xf16> -> !phobos.tile<64x4xf32>
  phobos.return
}

// -----

// The CTA's warps must all get a whole number of fragments: a 16x8 result
// fits one warp (@launch(32)) but not the default 256 threads (8 warps),
// where 128x64 does (4x2 warps of 32x32).
// CHECK-LABEL: phobos.kernel @one_warp
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<16x16xf16>, !phobos.tile<16x8xf16> -> !phobos.tile<16x8xf32>
phobos.kernel @one_warp(%h: f16) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %h : !phobos.tile<16x16xf16>
  %b = phobos.fill %h : !phobos.tile<16x8xf16>
  %d = phobos.dot %a, %b : !phobos.tile<16x16xf16>, !phobos.tile<16x8xf16> -> !phobos.tile<16x8xf32>
  phobos.return
}

// CHECK-LABEL: phobos.kernel @eight_warps
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(fma) : !phobos.tile<16x16xf16>, !phobos.tile<16x8xf16> -> !phobos.tile<16x8xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(mma_sync) : !phobos.tile<128x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<128x64xf32>
phobos.kernel @eight_warps(%h: f16) {
  %a = phobos.fill %h : !phobos.tile<16x16xf16>
  %b = phobos.fill %h : !phobos.tile<16x8xf16>
  %d = phobos.dot %a, %b : !phobos.tile<16x16xf16>, !phobos.tile<16x8xf16> -> !phobos.tile<16x8xf32>
  %a2 = phobos.fill %h : !phobos.tile<128x16xf16>
  %b2 = phobos.fill %h : !phobos.tile<16x64xf16>
  %d2 = phobos.dot %a2, %b2 : !phobos.tile<128x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<128x64xf32>
  phobos.return
}

// -----

// A dot whose operands are already in shared memory keeps its kind.
// CHECK-LABEL: phobos.kernel @already_promoted
// CHECK: phobos.dot %{{.*}}, %{{.*}} kind(fma) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
phobos.kernel @already_promoted(%h: f16) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %h : !phobos.tile<16x16xf16>
  %s = phobos.local_alloc %a : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %d = phobos.dot %s, %s kind(fma) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf32>
  phobos.return
}
