// RUN: phobos-opt %s --convert-tile-to-gpu="vector-atomics=true" | FileCheck %s

// A bulk atomic_add (tile-bulk-atomics): where the tensor's base is 16-byte
// aligned and the rows start at a multiple of 4 elements (a CTA-wide
// condition), every thread stores its elements to the scratch region in
// rows padded to 32 + 4 floats, fences them for the async proxy and meets
// the others at a barrier; then thread t < 16 adds row t (inside the
// tensor: its point and row indices tested) with one bulk reduction of
// 32 x 4 bytes, and every thread commits and waits until its reductions
// have read the scratch. Otherwise the per-register path (v4 reductions).

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @add_block
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[BASE:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: %[[LOW:.*]] = arith.andi %[[BASE]], %{{.*}} : i64
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : i64
// CHECK: %[[FITS:.*]] = arith.andi %[[ALIGNED]], %{{.*}} : i1
// CHECK: scf.if %[[FITS]] {
// CHECK: arith.muli %{{.*}}, %c36_i32
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-COUNT-7: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[ROW:.*]] = arith.addi %[[TID]], %{{.*}} : i32
// CHECK: %[[ROWS:.*]] = arith.cmpi slt, %[[ROW]], %c16_i32 : i32
// CHECK: arith.cmpi ult
// CHECK: arith.cmpi ult
// CHECK: %[[G:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: %[[S:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], 128;", "l,r,~{memory}" %[[G]], %[[S]] : (i64, i32) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: } else {
// CHECK-NOT: cp.reduce
// CHECK: red.relaxed.gpu.global.add.v4.f32
// CHECK: gpu.return
phobos.kernel @add_block(%DQ: !phobos.tensor<?x?x32xf32> {phobos.dims = ["BH", "N", "D"]}, %x: f32, %bh: i32, %r0: i32)
    attributes {max_threads = 64 : i32, phobos.barriers, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : i32
  %t = phobos.fill %x : !phobos.tile<16x32xf32, #l>
  phobos.atomic_add %t, %DQ[%bh, %r0, %c0] {point_axes = array<i64: 0>, in_bounds = array<i1: false, false, true>, bulk} : !phobos.tile<16x32xf32, #l>, !phobos.tensor<?x?x32xf32>
  phobos.return
}
