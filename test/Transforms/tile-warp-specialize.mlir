// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-warp-specialize))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-warp-specialize{everywhere=true producer-registers=56}))' --split-input-file | FileCheck %s --check-prefix=EVERY
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-warp-specialize{producer-registers=20}))' --split-input-file 2>&1 | FileCheck %s --check-prefix=BADREGS

#tl = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tat = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#tpl = #phobos.shared<order = [0], padding = 0>

// A released TMA ring (tile-pipeline's form): the prologue fills slots 0
// and 1, each iteration refills slot i + 2 after its release and computes
// on slot i. @warp_specialize splits the kernel from its first tile op
// (the fill) on: the buffers and mbarriers go first, for every thread; the
// producer gets the prologue's copies and a loop of the refills only, with
// the index arithmetic they use cloned into it; the consumers keep the
// rest, without the copies. The local_alloc of A was ordered before the
// dots by the barrier that ends the mbarriers' initialisation, which now
// comes first: a consumer barrier takes its place. The registers: 40 for each producer thread,
// (65536 - 128 * 40) / 256 = 236, rounded down to 232, for each consumer.
// CHECK-LABEL: phobos.kernel @released
// CHECK: %[[BB:.*]] = phobos.local_buffer
// CHECK: %[[EMPTY:.*]] = phobos.local_barriers {arrivals = 8 : i32
// CHECK: %[[FULL:.*]] = phobos.local_barriers {arrivals = 1 : i32
// CHECK: phobos.warp_specialize producer(40) {
// CHECK: %[[S0:.*]] = phobos.buffer_slot %[[BB]][%{{.*}}] lag 0
// CHECK: phobos.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] into %[[S0]] arrive %[[FULL]][%{{.*}}] :
// CHECK: %[[S1:.*]] = phobos.buffer_slot %[[BB]][%{{.*}}] lag 1
// CHECK: phobos.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] into %[[S1]] arrive %[[FULL]][%{{.*}}] :
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK: %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK: %[[NEXT:.*]] = arith.remsi %[[AHEAD]]
// CHECK: %[[S2:.*]] = phobos.buffer_slot %[[BB]][%[[NEXT]]] lag 2
// CHECK: %[[PARITY:.*]] = arith.remsi
// CHECK: phobos.tma_copy %{{.*}}[%[[AHEAD]], %{{.*}}] into %[[S2]] arrive %[[FULL]][%[[NEXT]]] after %[[EMPTY]], %[[PARITY]] :
// CHECK-NEXT: }
// CHECK-NEXT: } consumer(232) {
// CHECK: phobos.fill
// CHECK: phobos.load
// CHECK: phobos.local_alloc
// CHECK-NEXT: phobos.barrier
// CHECK-NOT: phobos.tma_copy
// CHECK: scf.for
// CHECK-NOT: phobos.tma_copy
// CHECK: phobos.mbarrier_wait %[[FULL]]
// CHECK: phobos.dot
// CHECK: phobos.mbarrier_arrive %[[EMPTY]]
// CHECK: phobos.store
// CHECK-NEXT: }
// CHECK-NEXT: phobos.return
// EVERY-LABEL: phobos.kernel @released
// EVERY: phobos.warp_specialize producer(56) {
// EVERY: } consumer(224) {
phobos.kernel @released(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x64xf32, #twg>
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x64xf16, #tl>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<128x64xf16, #tl> -> !phobos.smem<128x64xf16, #tat>
  %bb = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<3x64x64xf16, #tat>
  %empty = phobos.local_barriers {arrivals = 8 : i32, offset = 40960 : i64} : !phobos.smem<3xi64, #tpl>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 40992 : i64} : !phobos.smem<3xi64, #tpl>
  %s00 = phobos.buffer_slot %bb[%c0] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
  phobos.tma_copy %B[%c0, %c0] into %s00 arrive %full[%c0] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>
  %s01 = phobos.buffer_slot %bb[%c1] lag 1 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
  phobos.tma_copy %B[%c1, %c0] into %s01 arrive %full[%c1] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!phobos.tile<128x64xf32, #twg>) : i32 {
    %slot = arith.remsi %i, %c3 : i32
    %round = arith.divsi %i, %c3 : i32
    %parity = arith.remsi %round, %c2 : i32
    phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<3xi64, #tpl>
    %s0 = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    %d = phobos.dot %sa, %s0, %acc kind(wgmma) : !phobos.smem<128x64xf16, #tat>, !phobos.smem<64x64xf16, #tat>, !phobos.tile<128x64xf32, #twg> -> !phobos.tile<128x64xf32, #twg>
    phobos.mbarrier_arrive %empty[%slot] : !phobos.smem<3xi64, #tpl>
    %ahead = arith.addi %i, %c2 : i32
    %next = arith.remsi %ahead, %c3 : i32
    %fill = arith.divsi %ahead, %c3 : i32
    %k1 = arith.addi %fill, %c1 : i32
    %released = arith.remsi %k1, %c2 : i32
    %s2 = phobos.buffer_slot %bb[%next] lag 2 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.tma_copy %B[%ahead, %c0] into %s2 arrive %full[%next] after %empty, %released : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>, !phobos.smem<3xi64, #tpl>
    scf.yield %d : !phobos.tile<128x64xf32, #twg>
  } {phobos.pipeline_stages = 3 : i64}
  phobos.store %r, %C[%c0, %c0] : !phobos.tile<128x64xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#tl = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tat = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#tpl = #phobos.shared<order = [0], padding = 0>

// A refill that is not released (a CTA barrier orders it) needs every
// thread of the CTA: left alone, even with everywhere.
// CHECK-LABEL: phobos.kernel @unreleased
// CHECK-NOT: phobos.warp_specialize
// EVERY-LABEL: phobos.kernel @unreleased
// EVERY-NOT: phobos.warp_specialize
phobos.kernel @unreleased(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x64xf32, #twg>
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x64xf16, #tl>
  %sa = phobos.local_alloc %a {offset = 32768 : i64} : !phobos.tile<128x64xf16, #tl> -> !phobos.smem<128x64xf16, #tat>
  %bb = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<3x64x64xf16, #tat>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 24576 : i64} : !phobos.smem<3xi64, #tpl>
  %s00 = phobos.buffer_slot %bb[%c0] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
  phobos.tma_copy %B[%c0, %c0] into %s00 arrive %full[%c0] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!phobos.tile<128x64xf32, #twg>) : i32 {
    %slot = arith.remsi %i, %c3 : i32
    %ahead = arith.addi %i, %c2 : i32
    %next = arith.remsi %ahead, %c3 : i32
    %s2 = phobos.buffer_slot %bb[%next] lag 2 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.barrier
    phobos.tma_copy %B[%ahead, %c0] into %s2 arrive %full[%next] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>
    %round = arith.divsi %i, %c3 : i32
    %parity = arith.remsi %round, %c2 : i32
    phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<3xi64, #tpl>
    %s0 = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    %d = phobos.dot %sa, %s0, %acc kind(wgmma) : !phobos.smem<128x64xf16, #tat>, !phobos.smem<64x64xf16, #tat>, !phobos.tile<128x64xf32, #twg> -> !phobos.tile<128x64xf32, #twg>
    scf.yield %d : !phobos.tile<128x64xf32, #twg>
  } {phobos.pipeline_stages = 3 : i64}
  phobos.store %r, %C[%c0, %c0] : !phobos.tile<128x64xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tat = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#tpl = #phobos.shared<order = [0], padding = 0>

// Without @warp_specialize only `everywhere` splits; a refill whose offset
// is carried by the loop cannot be computed by the producer alone.
// CHECK-LABEL: phobos.kernel @not_marked
// CHECK-NOT: phobos.warp_specialize
// EVERY-LABEL: phobos.kernel @not_marked
// EVERY: phobos.warp_specialize producer(56)
// EVERY-LABEL: phobos.kernel @carried
// EVERY-NOT: phobos.warp_specialize
// EVERY: phobos.return
// BADREGS: error: tile-warp-specialize: producer-registers must be a multiple of 8 from 24 to 256, got 20
phobos.kernel @not_marked(%B: !phobos.tensor<?x?xf16>, %n: i32) attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %bb = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #tat>
  %empty = phobos.local_barriers {arrivals = 4 : i32, offset = 16384 : i64} : !phobos.smem<2xi64, #tpl>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 16400 : i64} : !phobos.smem<2xi64, #tpl>
  %s00 = phobos.buffer_slot %bb[%c0] lag 0 : !phobos.smem<2x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
  phobos.tma_copy %B[%c0, %c0] into %s00 arrive %full[%c0] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<2xi64, #tpl>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %slot = arith.remsi %i, %c2 : i32
    %parity = arith.divsi %i, %c2 : i32
    phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<2xi64, #tpl>
    phobos.mbarrier_arrive %empty[%slot] : !phobos.smem<2xi64, #tpl>
    %ahead = arith.addi %i, %c1 : i32
    %next = arith.remsi %ahead, %c2 : i32
    %s1 = phobos.buffer_slot %bb[%next] lag 1 : !phobos.smem<2x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.tma_copy %B[%ahead, %c0] into %s1 arrive %full[%next] after %empty, %parity : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<2xi64, #tpl>, !phobos.smem<2xi64, #tpl>
  } {phobos.pipeline_stages = 2 : i64}
  phobos.return
}

phobos.kernel @carried(%B: !phobos.tensor<?x?xf16>, %n: i32) attributes {max_threads = 128 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %bb = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #tat>
  %empty = phobos.local_barriers {arrivals = 4 : i32, offset = 16384 : i64} : !phobos.smem<2xi64, #tpl>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 16400 : i64} : !phobos.smem<2xi64, #tpl>
  %s00 = phobos.buffer_slot %bb[%c0] lag 0 : !phobos.smem<2x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
  phobos.tma_copy %B[%c0, %c0] into %s00 arrive %full[%c0] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<2xi64, #tpl>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%row = %c0) -> (i32) : i32 {
    %slot = arith.remsi %i, %c2 : i32
    %parity = arith.divsi %i, %c2 : i32
    phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<2xi64, #tpl>
    phobos.mbarrier_arrive %empty[%slot] : !phobos.smem<2xi64, #tpl>
    %ahead = arith.addi %row, %c1 : i32
    %next = arith.remsi %ahead, %c2 : i32
    %s1 = phobos.buffer_slot %bb[%next] lag 1 : !phobos.smem<2x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.tma_copy %B[%ahead, %c0] into %s1 arrive %full[%next] after %empty, %parity : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<2xi64, #tpl>, !phobos.smem<2xi64, #tpl>
    scf.yield %ahead : i32
  } {phobos.pipeline_stages = 2 : i64}
  phobos.return
}

// -----

#tl = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tat = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#tpl = #phobos.shared<order = [0], padding = 0>

// A loop unswitched on a kernel argument (tile-unswitch-loops): each
// branch of the top-level scf.if holds a released pipeline of its own,
// with buffers and mbarriers of its own (the branches' data buffers share
// bytes; tile-allocate-shared keeps the mbarriers apart). Every buffer
// and mbarrier goes first; the producer takes the same branch as the
// consumers, each branch with its prologue's copy and a loop of its
// refills; the consumers keep the whole scf.if, without the copies, and
// the barrier that replaces each branch's mbarrier initialisation (the
// local_alloc of A before the branch was ordered by it).
// CHECK-LABEL: phobos.kernel @unswitched
// CHECK: %[[BT:.*]] = phobos.local_buffer {offset = 16384
// CHECK: %[[ET:.*]] = phobos.local_barriers {arrivals = 8 : i32, offset = 40960
// CHECK: %[[FT:.*]] = phobos.local_barriers {arrivals = 1 : i32, offset = 40992
// CHECK: %[[BE:.*]] = phobos.local_buffer {offset = 16384
// CHECK: %[[EE:.*]] = phobos.local_barriers {arrivals = 8 : i32, offset = 41024
// CHECK: %[[FE:.*]] = phobos.local_barriers {arrivals = 1 : i32, offset = 41056
// CHECK: phobos.warp_specialize producer(40) {
// CHECK: scf.if %{{.*}} {
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[FT]]
// CHECK: scf.for
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[FT]][%{{.*}}] after %[[ET]]
// CHECK: } else {
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[FE]]
// CHECK: scf.for
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[FE]][%{{.*}}] after %[[EE]]
// CHECK: } consumer(232) {
// CHECK: phobos.local_alloc
// CHECK-NOT: phobos.tma_copy
// CHECK: scf.if %{{.*}} -> (
// CHECK-NEXT: phobos.barrier
// CHECK-NOT: phobos.tma_copy
// CHECK: phobos.mbarrier_arrive %[[ET]]
// CHECK: } else {
// CHECK-NEXT: phobos.barrier
// CHECK-NOT: phobos.tma_copy
// CHECK: phobos.mbarrier_arrive %[[EE]]
// CHECK: phobos.store
phobos.kernel @unswitched(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %n: i32, %flag: i1) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x64xf32, #twg>
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x64xf16, #tl>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<128x64xf16, #tl> -> !phobos.smem<128x64xf16, #tat>
  %half = arith.divsi %n, %c2 : i32
  %r = scf.if %flag -> (!phobos.tile<128x64xf32, #twg>) {
    %bb = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<3x64x64xf16, #tat>
    %empty = phobos.local_barriers {arrivals = 8 : i32, offset = 40960 : i64} : !phobos.smem<3xi64, #tpl>
    %full = phobos.local_barriers {arrivals = 1 : i32, offset = 40992 : i64} : !phobos.smem<3xi64, #tpl>
    %s00 = phobos.buffer_slot %bb[%c0] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.tma_copy %B[%c0, %c0] into %s00 arrive %full[%c0] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>
    %t = scf.for %i = %c0 to %half step %c1 iter_args(%acc = %init) -> (!phobos.tile<128x64xf32, #twg>) : i32 {
      %slot = arith.remsi %i, %c3 : i32
      %round = arith.divsi %i, %c3 : i32
      %parity = arith.remsi %round, %c2 : i32
      phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<3xi64, #tpl>
      %s0 = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
      %d = phobos.dot %sa, %s0, %acc kind(wgmma) : !phobos.smem<128x64xf16, #tat>, !phobos.smem<64x64xf16, #tat>, !phobos.tile<128x64xf32, #twg> -> !phobos.tile<128x64xf32, #twg>
      phobos.mbarrier_arrive %empty[%slot] : !phobos.smem<3xi64, #tpl>
      %ahead = arith.addi %i, %c1 : i32
      %next = arith.remsi %ahead, %c3 : i32
      %fill = arith.divsi %ahead, %c3 : i32
      %k1 = arith.addi %fill, %c1 : i32
      %released = arith.remsi %k1, %c2 : i32
      %s1 = phobos.buffer_slot %bb[%next] lag 1 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
      phobos.tma_copy %B[%ahead, %c0] into %s1 arrive %full[%next] after %empty, %released : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>, !phobos.smem<3xi64, #tpl>
      scf.yield %d : !phobos.tile<128x64xf32, #twg>
    } {phobos.pipeline_stages = 3 : i64}
    scf.yield %t : !phobos.tile<128x64xf32, #twg>
  } else {
    %bb = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<3x64x64xf16, #tat>
    %empty = phobos.local_barriers {arrivals = 8 : i32, offset = 41024 : i64} : !phobos.smem<3xi64, #tpl>
    %full = phobos.local_barriers {arrivals = 1 : i32, offset = 41056 : i64} : !phobos.smem<3xi64, #tpl>
    %s00 = phobos.buffer_slot %bb[%c0] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.tma_copy %B[%c0, %c0] into %s00 arrive %full[%c0] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>
    %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!phobos.tile<128x64xf32, #twg>) : i32 {
      %slot = arith.remsi %i, %c3 : i32
      %round = arith.divsi %i, %c3 : i32
      %parity = arith.remsi %round, %c2 : i32
      phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<3xi64, #tpl>
      %s0 = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
      %d = phobos.dot %sa, %s0, %acc kind(wgmma) : !phobos.smem<128x64xf16, #tat>, !phobos.smem<64x64xf16, #tat>, !phobos.tile<128x64xf32, #twg> -> !phobos.tile<128x64xf32, #twg>
      phobos.mbarrier_arrive %empty[%slot] : !phobos.smem<3xi64, #tpl>
      %ahead = arith.addi %i, %c1 : i32
      %next = arith.remsi %ahead, %c3 : i32
      %fill = arith.divsi %ahead, %c3 : i32
      %k1 = arith.addi %fill, %c1 : i32
      %released = arith.remsi %k1, %c2 : i32
      %s1 = phobos.buffer_slot %bb[%next] lag 1 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
      phobos.tma_copy %B[%ahead, %c0] into %s1 arrive %full[%next] after %empty, %released : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>, !phobos.smem<3xi64, #tpl>
      scf.yield %d : !phobos.tile<128x64xf32, #twg>
    } {phobos.pipeline_stages = 3 : i64}
    scf.yield %t : !phobos.tile<128x64xf32, #twg>
  }
  phobos.store %r, %C[%c0, %c0] : !phobos.tile<128x64xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}
