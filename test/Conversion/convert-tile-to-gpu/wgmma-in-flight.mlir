// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s

// A wgmma dot with in_flight = 1 waits only until one group is left
// running; phobos.wgmma_wait waits for the rest and passes the accumulator
// registers through its inline assembly (tied operands), so that the store
// reads them after the wait.

// CHECK-LABEL: gpu.func @in_flight
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: %[[W:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,{{.*}},0,1,{{.*}},63" {{.*}} : (f32, {{.*}}) -> !llvm.struct<(f32, {{.*}})>
// CHECK: llvm.extractvalue %[[W]][0]
// CHECK: llvm.extractvalue %[[W]][63]
// CHECK: llvm.store
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#sb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#mma = #phobos.mma<warpsPerCTA = [4, 1]>
phobos.kernel @in_flight(%h: f16, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, phobos.scratch_offset = 12288 : i64, phobos.shared_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<64x32xf16, #la>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sa>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #lb>
  %sb = phobos.local_alloc %b {offset = 4096 : i64} : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sb>
  %d = phobos.dot %sa, %sb kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<64x32xf16, #sa>, !phobos.smem<32x128xf16, #sb> -> !phobos.tile<64x128xf32, #mma>
  %w = phobos.wgmma_wait %d {pending = 0 : i32} : !phobos.tile<64x128xf32, #mma>
  phobos.store %w, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// A swap_ab dot kept in flight reads B's fragments from a register tile
// (tile-pipeline's local_load, two 8-byte loads a k-step): the dot loads
// nothing from B, and the wait that retires its group takes the fragments
// as inputs, so their registers stay allocated while the group reads them.
// CHECK-LABEL: gpu.func @swap_held
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-NOT: llvm.load
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},31,f,f,f,f" {{.*}} : (f32, {{.*}}) -> !llvm.struct<(f32, {{.*}})>
#lsa = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#lsb = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#ssa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 4, 2], atom = 8>
#ssb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 1, 8], atom = 32>
#frag = #phobos.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#swapped = #phobos.blocked<sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
phobos.kernel @swap_held(%x: f32, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, phobos.scratch_offset = 4096 : i64, phobos.shared_bytes = 4096 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<64x8xf32, #lsa>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<64x8xf32, #lsa> -> !phobos.smem<64x8xf32, #ssa>
  %b = phobos.fill %x : !phobos.tile<8x64xf32, #lsb>
  %sb = phobos.local_alloc %b {offset = 2048 : i64} : !phobos.tile<8x64xf32, #lsb> -> !phobos.smem<8x64xf32, #ssb>
  %acc = phobos.fill %x : !phobos.tile<64x64xf32, #swapped>
  %fb = phobos.local_load %sb : !phobos.smem<8x64xf32, #ssb> -> !phobos.tile<8x64xf32, #frag>
  %d = phobos.dot %sa, %fb, %acc precision(tf32) kind(wgmma) swap_ab {in_flight = 1 : i32} : !phobos.smem<64x8xf32, #ssa>, !phobos.tile<8x64xf32, #frag>, !phobos.tile<64x64xf32, #swapped> -> !phobos.tile<64x64xf32, #swapped>
  %w = phobos.wgmma_wait %d holding %fb : !phobos.tile<8x64xf32, #frag> {pending = 0 : i32} : !phobos.tile<64x64xf32, #swapped>
  phobos.store %w, %C[%c0, %c0] : !phobos.tile<64x64xf32, #swapped>, !phobos.tensor<?x?xf32>
  phobos.return
}
