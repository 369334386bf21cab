// RUN: phobos-opt %s --convert-tile-to-gpu --split-input-file | FileCheck %s

// A kernel split by tile-warp-specialize. The launch has a producer
// warpgroup beyond @launch's 256 threads (384), the split is a branch on
// the warpgroup index shuffled from lane 0 (uniform across each warp, so
// ptxas sees no divergence around wgmma): warpgroup 2 gives up registers
// (setmaxnreg.dec 40) and runs the producer in its first warp (warp 8;
// the other three exit): each copy from its first thread (thread 256),
// after the warp waited for the slot's release; the consumers take
// registers (setmaxnreg.inc 232) and
// their CTA barriers become named barrier 1 over their 256 threads. The
// mbarriers are initialised before the branch, for all 384 threads.
// CHECK-LABEL: gpu.func @split
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: %[[GROUP:.*]] = arith.divui %[[TID]], %[[C128]]
// CHECK: %[[UNIFORM:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[GROUP]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: %[[PRODUCER:.*]] = arith.cmpi eq, %[[UNIFORM]], %[[C2]]
// CHECK: scf.if %[[PRODUCER]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[TID]], %[[C32]]
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: %[[COPIER:.*]] = arith.cmpi eq, %[[WARP]], %[[C8]]
// CHECK-NEXT: scf.if %[[COPIER]] {
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %[[C256]]
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive
// CHECK: } {phobos.roles}
// CHECK: gpu.return

#tat = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#tpl = #phobos.shared<order = [0], padding = 0>

phobos.kernel @split(%B: !phobos.tensor<?x?xf16> {phobos.dims = ["K", "N"]}, %n: i32) attributes {max_threads = 256 : i32, aligned = {N = 8 : i64}, phobos.barriers, phobos.shared_bytes = 16416 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %bb = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #tat>
  %empty = phobos.local_barriers {arrivals = 8 : i32, offset = 16384 : i64} : !phobos.smem<2xi64, #tpl>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 16400 : i64} : !phobos.smem<2xi64, #tpl>
  phobos.warp_specialize producer(40) {
    scf.for %i = %c0 to %n step %c1 : i32 {
      %slot = arith.remsi %i, %c2 : i32
      %round = arith.divsi %i, %c2 : i32
      %fill = arith.addi %round, %c1 : i32
      %parity = arith.remsi %fill, %c2 : i32
      %s = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<2x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
      phobos.tma_copy %B[%i, %c0] into %s arrive %full[%slot] after %empty, %parity : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<2xi64, #tpl>, !phobos.smem<2xi64, #tpl>
    }
  } consumer(232) {
    phobos.barrier
    scf.for %i = %c0 to %n step %c1 : i32 {
      %slot = arith.remsi %i, %c2 : i32
      %round = arith.divsi %i, %c2 : i32
      %parity = arith.remsi %round, %c2 : i32
      phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<2xi64, #tpl>
      phobos.mbarrier_arrive %empty[%slot] : !phobos.smem<2xi64, #tpl>
    }
  }
  phobos.return
}

// -----

// The consumer warpgroups' turns (tile-pingpong) as named barriers 2 and 3
// over both warpgroups' 256 threads: warpgroup w takes its turn with
// `bar.sync 2 + w` and gives it with `bar.arrive` on the next one's
// barrier; before the loop warpgroup 1 gives warpgroup 0 the first turn,
// after it warpgroup 0 takes the last one back. The warpgroup index is
// shuffled from lane 0, as for the split.
// CHECK-LABEL: gpu.func @turns
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: %[[G0:.*]] = nvvm.shfl.sync idx
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[G0]], %[[C1]]
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[TWO]] number_of_threads = %{{.*}}
// CHECK: scf.for
// CHECK: %[[G1:.*]] = nvvm.shfl.sync idx
// CHECK: %[[MINE:.*]] = arith.addi %[[G1]], %{{.*}}
// CHECK: nvvm.barrier id = %[[MINE]] number_of_threads = %[[N:.*]]
// CHECK: %[[G2:.*]] = nvvm.shfl.sync idx
// CHECK: %[[AFTER:.*]] = arith.addi %[[G2]], %{{.*}}
// CHECK: %[[NEXT:.*]] = arith.remui %[[AFTER]], %{{.*}}
// CHECK: %[[ITS:.*]] = arith.addi %[[NEXT]], %{{.*}}
// CHECK: nvvm.barrier.arrive id = %[[ITS]] number_of_threads = %{{.*}}
// CHECK: }
// CHECK: %[[G3:.*]] = nvvm.shfl.sync idx
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[G3]], %{{.*}}
// CHECK: scf.if %[[FIRST]] {
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: } {phobos.roles}

phobos.kernel @turns(%n: i32) attributes {max_threads = 256 : i32, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    phobos.warpgroup_turn start
    scf.for %i = %c0 to %n step %c1 : i32 {
      phobos.warpgroup_turn take
      phobos.warpgroup_turn give
    }
    phobos.warpgroup_turn finish
  }
  phobos.return
}
