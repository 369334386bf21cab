// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s

// wgmma (sm_90a): the operands are read from their atom layouts through
// matrix descriptors, one m64nNk16 per 16 of K, between a wgmma fence and a
// commit that the dot waits for. The barrier in front of the dot first
// fences the generic-proxy writes of the buffers for wgmma's async proxy.
// Descriptors: A [64, 32] f16, K-major in 64-byte atoms: swizzle mode 2
// (bits 62-63), 8 rows of 64 B to the next 8 (SBO 512 >> 4 = 32 at bit 32),
// leading offset unused (1 at bit 16): 0x8000002000010000. B [32, 128] f16,
// N-major in 128-byte atoms: mode 1, SBO 1024 >> 4 = 64, the next atom
// column 32 rows x 128 B later (LBO 4096 >> 4 = 256): 0x4000004001000000.
// The second K step starts 16 elements (32 B) into A's atoms and 16 rows
// (2048 B) into B's: the first step's descriptors plus 32 >> 4 = 2 and
// 2048 >> 4 = 128 (the address field is the address over 16; it cannot
// carry). The dot has no accumulator: the first wgmma does not
// read D (scale-d zero), which starts undefined rather than zeroed.

// CHECK-LABEL: gpu.func @wgmma
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[UNDEF:.*]] = llvm.mlir.undef : !llvm.struct<(f32,
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: arith.constant -9223371899415756800 : i64
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: arith.constant 4611686293322072064 : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[UNDEF]], <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<(f32, {{.*}})> -> !llvm.struct<(f32, {{.*}})>
// CHECK: %[[A1BASE:.*]] = arith.ori %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[A1BASE]], %[[TWO]] : i64
// CHECK: %[[B1BASE:.*]] = arith.ori %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 128 : i64
// CHECK-NEXT: %[[B1:.*]] = arith.addi %[[B1BASE]], %[[STEP]] : i64
// CHECK-NEXT: nvvm.wgmma.mma_async %[[A1]], %[[B1]], %[[D0]], <m = 64, n = 128, k = 16>, D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: gpu.return
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#sb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#mma = #phobos.mma<warpsPerCTA = [4, 1]>
phobos.kernel @wgmma(%h: f16, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, phobos.scratch_offset = 12288 : i64, phobos.shared_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<64x32xf16, #la>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sa>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #lb>
  %sb = phobos.local_alloc %b {offset = 4096 : i64} : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sb>
  %d = phobos.dot %sa, %sb kind(wgmma) : !phobos.smem<64x32xf16, #sa>, !phobos.smem<32x128xf16, #sb> -> !phobos.tile<64x128xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// A wgmma whose A is a 16-bit register tile in the result's mma layout
// (attention's P) reads it from the registers: each 16 of K, a thread's
// four 32-bit A registers are pairs of its f16 elements (rows g and g + 8,
// columns 2t and 2t + 1 of two 8-column fragments), all packed before the
// wgmma fence; one inline m64nNk16 with A in braces, B through its
// descriptor (N-major: imm-trans-b = 1). The one barrier is B's.
// CHECK-LABEL: gpu.func @register_a
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-8: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.bitcast
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {$0, {{.*}}, $63}, {$128, $129, $130, $131}, $132, p, 1, 1, 1;
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: gpu.return
phobos.kernel @register_a(%h: f16, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, phobos.scratch_offset = 8192 : i64, phobos.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %p = phobos.fill %h : !phobos.tile<64x32xf16, #mma>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #lb>
  %sb = phobos.local_alloc %b {offset = 0 : i64} : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sb>
  %d = phobos.dot %p, %sb kind(wgmma) : !phobos.tile<64x32xf16, #mma>, !phobos.smem<32x128xf16, #sb> -> !phobos.tile<64x128xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// swap_ab (a tf32 B stored [K, N]): the wgmma computes the transpose. Each
// thread loads its A fragment (B^T) from B's N-major buffer, two 8-byte
// loads per 8 of K (k = t and t + 4, columns 2g, 2g + 1 of its warp's 16),
// all before the fence; A [64, 8] is the instruction's K-major B (32-byte
// atoms: mode 3, SBO 256 >> 4 = 16: 0xC000001000010000); one inline
// m64n64k8 (N = M) with no transpose immediates.
// CHECK-LABEL: gpu.func @wgmma_swap
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant -4611685949707845632 : i64
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: gpu.return
#lsa = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#lsb = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#ssa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 4, 2], atom = 8>
#ssb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 1, 8], atom = 32>
#swapped = #phobos.blocked<sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
phobos.kernel @wgmma_swap(%x: f32, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, phobos.scratch_offset = 4096 : i64, phobos.shared_bytes = 4096 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<64x8xf32, #lsa>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<64x8xf32, #lsa> -> !phobos.smem<64x8xf32, #ssa>
  %b = phobos.fill %x : !phobos.tile<8x64xf32, #lsb>
  %sb = phobos.local_alloc %b {offset = 2048 : i64} : !phobos.tile<8x64xf32, #lsb> -> !phobos.smem<8x64xf32, #ssb>
  %d = phobos.dot %sa, %sb precision(tf32) kind(wgmma) swap_ab : !phobos.smem<64x8xf32, #ssa>, !phobos.smem<8x64xf32, #ssb> -> !phobos.tile<64x64xf32, #swapped>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x64xf32, #swapped>, !phobos.tensor<?x?xf32>
  phobos.return
}

// transpose_a (tile-fold-transposed-operands): A is stored [K, M] = [32, 64]
// with M contiguous in one 128-byte atom column and read M-major: its
// descriptor takes the MN-major form, the same as B's here (mode 1, SBO
// 1024 >> 4 = 64, LBO 32 rows x 128 B = 4096 >> 4 = 256:
// 0x4000004001000000), the wgmma's A layout is col (imm-trans-a = 1), and
// the second K step starts 16 rows (2048 B, 128 over 16) into both
// buffers. Without the attribute A's descriptor would be K-major (LBO 1).
// CHECK-LABEL: gpu.func @wgmma_transposed_a
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 4611686293322072064 : i64
// CHECK: arith.constant 4611686293322072064 : i64
// CHECK: %[[T0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
// CHECK: %[[A1BASE:.*]] = arith.ori %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[ASTEP:.*]] = arith.constant 128 : i64
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[A1BASE]], %[[ASTEP]] : i64
// CHECK: nvvm.wgmma.mma_async %[[A1]], %{{.*}}, %[[T0]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK: gpu.return
#lat = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#lbt = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#s128 = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#mmat = #phobos.mma<warpsPerCTA = [4, 1]>
phobos.kernel @wgmma_transposed_a(%h: f16, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, phobos.scratch_offset = 12288 : i64, phobos.shared_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<32x64xf16, #lat>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<32x64xf16, #lat> -> !phobos.smem<32x64xf16, #s128>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #lbt>
  %sb = phobos.local_alloc %b {offset = 4096 : i64} : !phobos.tile<32x128xf16, #lbt> -> !phobos.smem<32x128xf16, #s128>
  %d = phobos.dot %sa, %sb transpose_a kind(wgmma) : !phobos.smem<32x64xf16, #s128>, !phobos.smem<32x128xf16, #s128> -> !phobos.tile<64x128xf32, #mmat>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mmat>, !phobos.tensor<?x?xf32>
  phobos.return
}
