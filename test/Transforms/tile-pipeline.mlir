// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{stages=4}))' --split-input-file | FileCheck %s --check-prefix=FOUR
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{max-shared-bytes=40000}))' --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{tma=false}))' --split-input-file | FileCheck %s --check-prefix=NOTMA
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{release-everywhere=true}))' --split-input-file | FileCheck %s --check-prefix=EVERY
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{dots-in-flight=false}))' --split-input-file | FileCheck %s --check-prefix=SYNC
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{fold-ragged=false}))' --split-input-file | FileCheck %s --check-prefix=NOFOLD
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pipeline{drain-ring=false}))' --split-input-file | FileCheck %s --check-prefix=NODRAIN

// A GEMM's main loop stages A and B for mma.sync. With @pipeline (and 3
// stages by default) each operand gets a 3-slot buffer; the prologue
// starts the copies of iterations 0 and 1 (a commit group each, enabled
// only if that iteration runs); each iteration starts the copy of
// iteration i + 2 into the slot (i + 2) mod 3, which iteration i - 1 read,
// closes its group, and computes on slot i mod 3 (lag 0). The last two
// iterations' copies are disabled: that is the epilogue, and no separate
// loop is needed. The remainder loop after it runs at most once and is
// left alone.
// CHECK-LABEL: phobos.kernel @hgemm
// CHECK: %[[FULL:.*]] = arith.muli
// CHECK: %[[BA:.*]] = phobos.local_buffer : !phobos.smem<3x64x32xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK: %[[BB:.*]] = phobos.local_buffer : !phobos.smem<3x32x128xf16, #phobos.shared<order = [1, 0], padding = 8>>
// Prologue: iteration 0 into slot 0, iteration 1 into slot 1.
// CHECK: %[[IT0:.*]] = arith.addi %[[LB:.*]], %{{.*}} : i32
// CHECK: %[[EN0:.*]] = arith.cmpi slt, %[[IT0]], %[[FULL]]
// CHECK: %[[S0A:.*]] = phobos.buffer_slot %[[BA]][%{{.*}}] lag 0
// CHECK: phobos.async_copy %{{.*}}[%{{.*}}, %[[IT0]]] into %[[S0A]] if %[[EN0]] {in_bounds = array<i1: false, true>}
// CHECK: %[[S0B:.*]] = phobos.buffer_slot %[[BB]][%{{.*}}] lag 0
// CHECK: phobos.async_copy %{{.*}}[%[[IT0]], %{{.*}}] into %[[S0B]] if %[[EN0]]
// CHECK: phobos.async_commit
// CHECK: %[[IT1:.*]] = arith.addi
// CHECK: %[[EN1:.*]] = arith.cmpi slt, %[[IT1]], %[[FULL]]
// CHECK: phobos.buffer_slot %[[BA]][%{{.*}}] lag 1
// CHECK: phobos.async_copy %{{.*}}[%{{.*}}, %[[IT1]]] into %{{.*}} if %[[EN1]]
// CHECK: phobos.buffer_slot %[[BB]][%{{.*}}] lag 1
// CHECK: phobos.async_copy
// CHECK: phobos.async_commit
// CHECK-NOT: phobos.async_copy
// Steady state.
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[FULL]] step %[[STEP:.*]] iter_args
// CHECK: %[[I:.*]] = arith.divsi
// CHECK: %[[SLOT:.*]] = arith.remsi %[[I]], %{{.*}}
// CHECK: %[[I2:.*]] = arith.addi %[[I]], %{{.*}}
// CHECK: %[[NEXT:.*]] = arith.remsi %[[I2]], %{{.*}}
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[AHEAD]], %[[FULL]]
// CHECK: %[[NA:.*]] = phobos.buffer_slot %[[BA]][%[[NEXT]]] lag 2
// CHECK: phobos.async_copy %{{.*}}[%{{.*}}, %[[AHEAD]]] into %[[NA]] if %[[MORE]]
// CHECK: %[[NB:.*]] = phobos.buffer_slot %[[BB]][%[[NEXT]]] lag 2
// CHECK: phobos.async_copy %{{.*}}[%[[AHEAD]], %{{.*}}] into %[[NB]] if %[[MORE]]
// CHECK-NEXT: phobos.async_commit
// CHECK-NEXT: %[[CA:.*]] = phobos.buffer_slot %[[BA]][%[[SLOT]]] lag 0
// CHECK-NEXT: %[[CB:.*]] = phobos.buffer_slot %[[BB]][%[[SLOT]]] lag 0
// CHECK-NEXT: phobos.dot %[[CA]], %[[CB]]
// CHECK-NOT: phobos.load
// CHECK: } {phobos.pipeline_stages = 3 : i64}
// The remainder keeps its loads and allocs.
// CHECK: scf.for %{{.*}} = %[[FULL]] to
// CHECK-NEXT: phobos.load
// CHECK-NEXT: phobos.local_alloc
// CHECK-NOT: phobos.pipeline_stages

// With stages=4 the buffers have four slots, the prologue three groups and
// the loop copies three iterations ahead.
// FOUR-LABEL: phobos.kernel @hgemm
// FOUR: phobos.local_buffer : !phobos.smem<4x64x32xf16
// FOUR: phobos.local_buffer : !phobos.smem<4x32x128xf16
// FOUR-COUNT-3: phobos.async_commit
// FOUR: scf.for
// FOUR: phobos.buffer_slot %{{.*}} lag 3
// FOUR: } {phobos.pipeline_stages = 4 : i64}

// Three stages of 15 KiB + 25 KiB do not fit in 40000 bytes: two do.
// SMALL-LABEL: phobos.kernel @hgemm
// SMALL: phobos.local_buffer : !phobos.smem<2x64x32xf16
// SMALL: } {phobos.pipeline_stages = 2 : i64}

// (The pass's statistics need an LLVM built with statistics; the stages
// chosen are also on the loop, as `phobos.pipeline_stages`.)
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>

phobos.kernel @hgemm(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %q = arith.divsi %k, %c32 : i32
  %full = arith.muli %q, %c32 : i32
  %main = scf.for %kk = %c0 to %full step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  %rest = scf.for %kk = %full to %k step %c32 iter_args(%acc = %main) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  phobos.store %rest, %C[%m0, %n0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// @pipeline(2) wins over the option; a kernel without @pipeline is left
// alone.
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>

// CHECK-LABEL: phobos.kernel @two
// CHECK: phobos.local_buffer : !phobos.smem<2x64x32xf16
// FOUR-LABEL: phobos.kernel @two
// FOUR: phobos.local_buffer : !phobos.smem<2x64x32xf16
phobos.kernel @two(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32, %k: i32)
    attributes {max_threads = 256 : i32, pipeline, pipeline_stages = 2 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %r = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  phobos.store %r, %C[%m0, %n0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// CHECK-LABEL: phobos.kernel @not_marked
// CHECK-NOT: phobos.async_copy
// CHECK: phobos.local_alloc
phobos.kernel @not_marked(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32, %k: i32)
    attributes {max_threads = 256 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %r = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  phobos.store %r, %C[%m0, %n0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A loop that stores to a tensor it loads keeps that load where it is (a
// later iteration may read what it wrote) and stages the other operand; a
// store to a third tensor stops nothing (distinct tensor arguments are
// distinct memory). Left as it is: an operand whose offset is a
// loop-carried value (it cannot be computed ahead).
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>

// CHECK-LABEL: phobos.kernel @stores_to_operand
// CHECK: phobos.local_buffer : !phobos.smem<3x32x128xf16
// CHECK-NOT: phobos.local_buffer
// CHECK: scf.for
// CHECK: phobos.load %{{.*}} : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16
// CHECK: phobos.store
// CHECK: phobos.return
phobos.kernel @stores_to_operand(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %m0: i32, %n0: i32, %k: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %r = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    %h = phobos.cast %d : !phobos.tile<64x128xf32, #mma> to !phobos.tile<64x128xf16, #mma>
    phobos.store %h, %A[%m0, %kk] : !phobos.tile<64x128xf16, #mma>, !phobos.tensor<?x?xf16>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  phobos.return
}

// -----

#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>

// CHECK-LABEL: phobos.kernel @stores_elsewhere
// CHECK: phobos.local_buffer : !phobos.smem<3x64x32xf16
// CHECK: phobos.local_buffer : !phobos.smem<3x32x128xf16
// CHECK: scf.for
// CHECK: phobos.atomic_add
// CHECK: phobos.return
phobos.kernel @stores_elsewhere(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32, %k: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %r = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    phobos.atomic_add %d, %C[%m0, %kk] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  phobos.return
}

// -----

// Left as it is: an operand whose offset is a loop-carried value (it cannot
// be computed ahead).
// -----

// wgmma dots kept in flight: every dot reading the slots is a wgmma whose
// accumulator only it uses, so each returns with its group still running
// (in_flight = 1). The copies run S-2 iterations ahead, so the slot an
// in-flight dot reads is rewritten only two iterations later; by default
// such a loop gets 4 stages (prologue: iterations 0 and 1; steady state:
// iteration i + 2 into slot (i + 2) mod 4, lag 2). A wgmma_wait after the
// loop retires the last group before the remainder loop (and the store)
// read the accumulator.
// CHECK-LABEL: phobos.kernel @in_flight
// CHECK: phobos.local_buffer : !phobos.smem<4x128x32xf16
// CHECK: phobos.local_buffer : !phobos.smem<4x32x128xf16
// CHECK: phobos.buffer_slot %{{.*}}[%{{.*}}] lag 0
// CHECK: phobos.buffer_slot %{{.*}}[%{{.*}}] lag 1
// CHECK-NOT: lag 2
// CHECK: %[[MAIN:.*]] = scf.for
// CHECK: phobos.buffer_slot %{{.*}}[%{{.*}}] lag 2
// CHECK: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} kind(wgmma) {in_flight = 1 : i32}
// CHECK: } {phobos.pipeline_stages = 4 : i64}
// CHECK-NEXT: %[[W:.*]] = phobos.wgmma_wait %[[MAIN]] {pending = 0 : i32}
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[W]])
// CHECK-NOT: in_flight
// SMALL-LABEL: phobos.kernel @in_flight
// SMALL-NOT: in_flight
// SMALL-NOT: wgmma_wait
// SMALL: } {phobos.pipeline_stages = 2 : i64}
// With dots-in-flight=false (the drivers' retry for a kernel that spills),
// every dot waits for its group: 3 stages, copies 2 iterations ahead.
// SYNC-LABEL: phobos.kernel @in_flight
// SYNC: phobos.local_buffer : !phobos.smem<3x128x32xf16
// SYNC-NOT: in_flight
// SYNC-NOT: wgmma_wait
// SYNC: } {phobos.pipeline_stages = 3 : i64}
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#wg = #phobos.mma<warpsPerCTA = [8, 1]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#sb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @in_flight(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #wg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %q = arith.divsi %k, %c32 : i32
  %full = arith.muli %q, %c32 : i32
  %main = scf.for %kk = %c0 to %full step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #wg>) : i32 {
    %a = phobos.load %A[%m0, %kk] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #la> -> !phobos.smem<128x32xf16, #sa>
    %b = phobos.load %B[%kk, %n0] {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #sa>, !phobos.smem<32x128xf16, #sb>, !phobos.tile<128x128xf32, #wg> -> !phobos.tile<128x128xf32, #wg>
    scf.yield %d : !phobos.tile<128x128xf32, #wg>
  }
  %rest = scf.for %kk = %full to %k step %c32 iter_args(%acc = %main) -> (!phobos.tile<128x128xf32, #wg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #la> -> !phobos.smem<128x32xf16, #sa>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #sa>, !phobos.smem<32x128xf16, #sb>, !phobos.tile<128x128xf32, #wg> -> !phobos.tile<128x128xf32, #wg>
    scf.yield %d : !phobos.tile<128x128xf32, #wg>
  }
  phobos.store %rest, %C[%m0, %n0] : !phobos.tile<128x128xf32, #wg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A wgmma dot whose result is used twice (here yielded to two loop-carried
// tiles) waits for its group as before: nothing may read registers a group
// still writes. The loop is pipelined as usual (3 stages, two ahead).
// CHECK-LABEL: phobos.kernel @acc_read
// CHECK: scf.for
// CHECK: lag 2
// CHECK-NOT: in_flight
// CHECK: } {phobos.pipeline_stages = 3 : i64}
// CHECK-NOT: wgmma_wait
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#wg = #phobos.mma<warpsPerCTA = [8, 1]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#sb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @acc_read(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #wg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %r:2 = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init, %last = %init) -> (!phobos.tile<128x128xf32, #wg>, !phobos.tile<128x128xf32, #wg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #la> -> !phobos.smem<128x32xf16, #sa>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #sa>, !phobos.smem<32x128xf16, #sb>, !phobos.tile<128x128xf32, #wg> -> !phobos.tile<128x128xf32, #wg>
    scf.yield %d, %d : !phobos.tile<128x128xf32, #wg>, !phobos.tile<128x128xf32, #wg>
  }
  phobos.store %r#1, %C[%m0, %n0] : !phobos.tile<128x128xf32, #wg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// TMA copies: every staged operand is a box of a 2-D tensor parameter in an
// atom layout, and @aligned promises that rows start 16-byte aligned (K and
// N multiples of 8 f16). The copies become phobos.tma_copy, arriving on one
// mbarrier per stage (both operands on the same one: 2 arrivals per
// phase); no commit groups. Each iteration waits on its slot's mbarrier,
// parity (i / 4) mod 2, before the slots are read.
// CHECK-LABEL: phobos.kernel @tma
// CHECK: %[[BA:.*]] = phobos.local_buffer : !phobos.smem<4x128x32xf16
// CHECK: %[[BB:.*]] = phobos.local_buffer : !phobos.smem<4x32x128xf16
// CHECK: %[[BARS:.*]] = phobos.local_barriers {arrivals = 2 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
// CHECK: phobos.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] into %{{.*}} arrive %[[BARS]][%{{.*}}] if %{{.*}} : !phobos.tensor<?x?xf16>, !phobos.smem<128x32xf16
// CHECK: phobos.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] into %{{.*}} arrive %[[BARS]][%{{.*}}] if %{{.*}} : !phobos.tensor<?x?xf16>, !phobos.smem<32x128xf16
// CHECK-NOT: phobos.async_commit
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[I:.*]] = arith.divsi
// CHECK: %[[SLOT:.*]] = arith.remsi %[[I]], %{{.*}} : i32
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[BARS]][%[[NEXT:.*]]] if
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[BARS]][%[[NEXT]]] if
// CHECK-NOT: phobos.async_commit
// CHECK: %[[FILL:.*]] = arith.divsi %[[I]], %{{.*}} : i32
// CHECK: %[[PARITY:.*]] = arith.remsi %[[FILL]], %{{.*}} : i32
// CHECK: phobos.mbarrier_wait %[[BARS]][%[[SLOT]]], %[[PARITY]]
// CHECK: phobos.buffer_slot %[[BA]][%[[SLOT]]] lag 0
// CHECK: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} kind(wgmma) {in_flight = 1 : i32}
// CHECK-NOT: mbarrier_arrive
// CHECK: scf.yield
// With release-everywhere, the slots are released by mbarriers although
// the dot's readers retire only in the next iteration (by default only
// readers retired by a wgmma wait of their own iteration are: measured, a
// GEMM gains nothing): the dot in flight is retired by the next
// iteration's dot, after which every warp (8: one arrival each) arrives on
// the previous slot's "empty" mbarrier (from the second iteration on). The
// refills (data i + 2, its k-th fill, k = (i + 2) / 4) move behind the dot
// and that release and wait for the release before theirs, parity
// (k + 1) mod 2.
// EVERY-LABEL: phobos.kernel @tma
// EVERY: %[[EMPTY:.*]] = phobos.local_barriers {arrivals = 8 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
// EVERY: %[[BARS:.*]] = phobos.local_barriers {arrivals = 2 : i32} : !phobos.smem<4xi64, #phobos.shared<order = [0], padding = 0>>
// EVERY: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// EVERY: %[[I:.*]] = arith.divsi
// EVERY: %[[SLOT:.*]] = arith.remsi %[[I]]
// EVERY: %[[NEXT:.*]] = arith.remsi
// EVERY-NOT: phobos.tma_copy
// EVERY: phobos.mbarrier_wait %[[BARS]]
// EVERY: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} kind(wgmma) {in_flight = 1 : i32}
// EVERY: %[[BACK:.*]] = arith.addi %[[I]], %{{.*}} : i32
// EVERY: %[[PREVIOUS:.*]] = arith.remsi %[[BACK]], %{{.*}} : i32
// EVERY: %[[STARTED:.*]] = arith.cmpi sgt, %[[I]], %{{.*}} : i32
// EVERY-NEXT: phobos.mbarrier_arrive %[[EMPTY]][%[[PREVIOUS]]] if %[[STARTED]]
// EVERY: %[[DATA:.*]] = arith.addi %[[I]], %{{.*}} : i32
// EVERY: %[[FILL:.*]] = arith.divsi %[[DATA]], %{{.*}} : i32
// EVERY: %[[FILL1:.*]] = arith.addi %[[FILL]], %{{.*}} : i32
// EVERY: %[[RELEASED:.*]] = arith.remsi %[[FILL1]], %{{.*}} : i32
// EVERY: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[BARS]][%[[NEXT]]] after %[[EMPTY]], %[[RELEASED]] if
// EVERY-NEXT: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[BARS]][%[[NEXT]]] after %[[EMPTY]], %[[RELEASED]] if
// EVERY-NEXT: scf.yield
// NOTMA-LABEL: phobos.kernel @tma
// NOTMA-NOT: tma_copy
// NOTMA: phobos.async_copy
#tla = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#tlb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#tsb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @tma(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "K"]}, %B: !phobos.tensor<?x?xf16> {phobos.dims = ["K", "N"]}, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16", aligned = {K = 8 : i64, N = 8 : i64}} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #twg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %main = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #twg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
    scf.yield %d : !phobos.tile<128x128xf32, #twg>
  }
  phobos.store %main, %C[%m0, %n0] : !phobos.tile<128x128xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A TMA pipeline runs the ragged remainder tile-split-ragged-loops left
// after it (a remainder marked phobos.ragged_remainder: it differs only by
// the in-bounds promises): the main loop goes to K, its last copies fill
// zeros past K as the remainder's masked loads read, and the remainder is
// gone. The prologue's copies and the trip count use the new bound.
// CHECK-LABEL: phobos.kernel @tma_ragged
// CHECK: %[[K:.*]] = phobos.dim %{{.*}}[1]
// CHECK: arith.cmpi slt, %{{.*}}, %[[K]] : i32
// CHECK: phobos.tma_copy
// CHECK: %[[MAIN:.*]] = scf.for %{{.*}} = %{{.*}} to %[[K]] step %{{.*}} iter_args
// CHECK: phobos.tma_copy
// CHECK: } {phobos.pipeline_stages = 4 : i64}
// CHECK-NEXT: %[[W:.*]] = phobos.wgmma_wait %[[MAIN]] {pending = 0 : i32}
// CHECK-NOT: scf.for
// CHECK: phobos.store %[[W]]
// Without TMA the remainder stays (cp.async would read past K).
// NOTMA-LABEL: phobos.kernel @tma_ragged
// NOTMA: scf.for
// NOTMA: } {phobos.ragged_remainder}
// NOTMA: phobos.store
// With fold-ragged=false the TMA pipeline stops at the last whole step and
// the remainder stays after it.
// NOFOLD-LABEL: phobos.kernel @tma_ragged
// NOFOLD: phobos.tma_copy
// NOFOLD: } {phobos.pipeline_stages = 4 : i64}
// NOFOLD: scf.for
// NOFOLD: } {phobos.ragged_remainder}
// NOFOLD: phobos.store
#tla = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#tlb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#tsb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @tma_ragged(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "K"]}, %B: !phobos.tensor<?x?xf16> {phobos.dims = ["K", "N"]}, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16", aligned = {K = 8 : i64, N = 8 : i64}} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #twg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %q = arith.divsi %k, %c32 : i32
  %full = arith.muli %q, %c32 : i32
  %main = scf.for %kk = %c0 to %full step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #twg>) : i32 {
    %a = phobos.load %A[%m0, %kk] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
    %b = phobos.load %B[%kk, %n0] {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
    scf.yield %d : !phobos.tile<128x128xf32, #twg>
  }
  %rest = scf.for %kk = %full to %k step %c32 iter_args(%acc = %main) -> (!phobos.tile<128x128xf32, #twg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
    scf.yield %d : !phobos.tile<128x128xf32, #twg>
  } {phobos.ragged_remainder}
  phobos.store %rest, %C[%m0, %n0] : !phobos.tile<128x128xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A drain: after the loop, a dot reads B's tile where the loop's load
// (B[kk - 32], tile-defer-dots' form) would read it one step past the last
// iteration, at end - 32 with end = 0 + max(0, ceil((k - 0) / 32)) * 32.
// The ring runs one fill further: the copies' bound is end + 32 (the
// prologue's and the refills'), and the dot after the loop waits for the
// fill of iteration `trips` (slot trips mod 4, parity (trips / 4) mod 2) and
// reads B's slot. A's tile after the loop reads A[m0, 0], not the
// iteration past the last: it stays a load.
// CHECK-LABEL: phobos.kernel @drained
// CHECK: %[[BB:.*]] = phobos.local_buffer : !phobos.smem<4x32x128xf16
// CHECK: %[[BARS:.*]] = phobos.local_barriers {arrivals = 2 : i32}
// CHECK: %[[TRIPS:.*]] = arith.maxsi
// CHECK: %[[END:.*]] = arith.addi
// CHECK-NEXT: %[[BOUND:.*]] = arith.addi %[[END]], %{{.*}} : i32
// CHECK: arith.cmpi slt, %{{.*}}, %[[BOUND]] : i32
// CHECK: phobos.tma_copy
// CHECK: scf.for
// CHECK: arith.cmpi slt, %{{.*}}, %[[BOUND]] : i32
// CHECK: phobos.tma_copy
// CHECK: } {phobos.pipeline_stages = 4 : i64}
// CHECK: %[[ACC:.*]] = phobos.wgmma_wait
// CHECK: %[[DSLOT:.*]] = arith.remsi %[[TRIPS]], %{{.*}} : i32
// CHECK: %[[DFILL:.*]] = arith.divsi %[[TRIPS]], %{{.*}} : i32
// CHECK: %[[DPARITY:.*]] = arith.remsi %[[DFILL]], %{{.*}} : i32
// CHECK: phobos.mbarrier_wait %[[BARS]][%[[DSLOT]]], %[[DPARITY]]
// CHECK: %[[DB:.*]] = phobos.buffer_slot %[[BB]][%[[DSLOT]]] lag 0
// CHECK: %[[A0:.*]] = phobos.load %{{.*}}[%{{.*}}, %{{.*}}] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16
// CHECK: %[[SA0:.*]] = phobos.local_alloc %[[A0]]
// CHECK: phobos.dot %[[SA0]], %[[DB]], %[[ACC]] kind(wgmma)
// CHECK-NOT: phobos.load
// CHECK: phobos.return
// With drain-ring=false the ring stops at the loop's bound and B's tile
// after it is loaded.
// NODRAIN-LABEL: phobos.kernel @drained
// NODRAIN-NOT: arith.maxsi
// NODRAIN: } {phobos.pipeline_stages = 4 : i64}
// NODRAIN: phobos.load %{{.*}} : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16
#tla = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#tlb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#tsb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @drained(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "K"]}, %B: !phobos.tensor<?x?xf16> {phobos.dims = ["K", "N"]}, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16", aligned = {K = 8 : i64, N = 8 : i64}} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #twg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %main = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #twg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
    %back = arith.subi %kk, %c32 : i32
    %b = phobos.load %B[%back, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
    scf.yield %d : !phobos.tile<128x128xf32, #twg>
  }
  %z = arith.constant 0 : i32
  %span = arith.subi %k, %c0 : i32
  %ceil = arith.ceildivsi %span, %c32 : i32
  %trips = arith.maxsi %z, %ceil : i32
  %run = arith.muli %trips, %c32 : i32
  %end = arith.addi %c0, %run : i32
  %last = arith.subi %end, %c32 : i32
  %bl = phobos.load %B[%last, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
  %sbl = phobos.local_alloc %bl : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
  %a0 = phobos.load %A[%m0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
  %sa0 = phobos.local_alloc %a0 : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
  %out = phobos.dot %sa0, %sbl, %main kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
  phobos.store %out, %C[%m0, %n0] : !phobos.tile<128x128xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A store to B between the loop and the drain: the tile the ring would
// fetch during the loop could be stale, so B's tile after the loop stays a
// load and the ring stops at the loop's bound.
// CHECK-LABEL: phobos.kernel @drain_after_store
// CHECK-NOT: arith.maxsi
// CHECK: } {phobos.pipeline_stages = 4 : i64}
// CHECK: phobos.store
// CHECK: phobos.load %{{.*}} : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16
#tla = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#tlb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#tsb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @drain_after_store(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "K"]}, %B: !phobos.tensor<?x?xf16> {phobos.dims = ["K", "N"]}, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16", aligned = {K = 8 : i64, N = 8 : i64}} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.0 : f16
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #twg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %main = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #twg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
    %back = arith.subi %kk, %c32 : i32
    %b = phobos.load %B[%back, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
    scf.yield %d : !phobos.tile<128x128xf32, #twg>
  }
  %z = arith.constant 0 : i32
  %span = arith.subi %k, %c0 : i32
  %ceil = arith.ceildivsi %span, %c32 : i32
  %trips = arith.maxsi %z, %ceil : i32
  %whole = arith.muli %trips, %c32 : i32
  %end = arith.addi %c0, %whole : i32
  %last = arith.subi %end, %c32 : i32
  %blank = phobos.fill %half : !phobos.tile<32x128xf16, #tlb>
  phobos.store %blank, %B[%last, %n0] : !phobos.tile<32x128xf16, #tlb>, !phobos.tensor<?x?xf16>
  %bl = phobos.load %B[%last, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
  %sbl = phobos.local_alloc %bl : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
  %a0 = phobos.load %A[%m0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
  %sa0 = phobos.local_alloc %a0 : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
  %out = phobos.dot %sa0, %sbl, %main kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
  phobos.store %out, %C[%m0, %n0] : !phobos.tile<128x128xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// tf32 on wgmma: B [K, N] staged K-major (a buffer that transposes it), its
// load in 4x4 blocks a thread (tile-swizzle-shared's choice), moves 16 bytes
// a load and a store through registers but 4 bytes a cp.async: it is staged
// through registers. The prologue stores slots 0 and 1 and loads
// iteration 2's tile (masked on K, which moves with the loop: those
// iterations may not exist), which the loop carries; each iteration stores
// it into the slot two ahead, where A's TMA copy goes, and loads the next one
// after the dot, or its own again past the loop's end: no mask on K, as in
// the source. A stays on TMA: the mbarriers count its one arrival.
// CHECK-LABEL: phobos.kernel @registers
// CHECK: %[[BA:.*]] = phobos.local_buffer : !phobos.smem<4x128x32xf32
// CHECK: %[[BB:.*]] = phobos.local_buffer : !phobos.smem<4x32x128xf32
// CHECK: %[[BARS:.*]] = phobos.local_barriers {arrivals = 1 : i32}
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[BARS]]
// CHECK: %[[B0:.*]] = phobos.load %{{.*}} {in_bounds = array<i1: false, false>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x128xf32, #phobos.blocked<sizePerThread = [4, 4]
// CHECK: %[[S0:.*]] = phobos.buffer_slot %[[BB]][%{{.*}}] lag 0
// CHECK: phobos.local_store %[[B0]] into %[[S0]]
// CHECK: phobos.tma_copy
// CHECK: phobos.local_store
// CHECK: %[[B2:.*]] = phobos.load %{{.*}} {in_bounds = array<i1: false, false>}
// CHECK-NOT: phobos.async_commit
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CARRIED:.*]] = %[[B2]])
// CHECK: phobos.tma_copy %{{.*}} into %{{.*}} arrive %[[BARS]]
// CHECK: %[[NEXT:.*]] = phobos.buffer_slot %[[BB]][%{{.*}}] lag 2
// CHECK: phobos.local_store %[[CARRIED]] into %[[NEXT]]
// CHECK: phobos.mbarrier_wait %[[BARS]]
// CHECK: phobos.dot {{.*}} kind(wgmma) {in_flight = 1 : i32}
// CHECK: %[[FOLLOWING:.*]] = arith.addi %[[K:.*]], %{{.*}} : i32
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[FOLLOWING]], %{{.*}} : i32
// CHECK: %[[AT:.*]] = arith.select %[[EXISTS]], %[[FOLLOWING]], %[[K]] : i32
// CHECK: %[[LOADED:.*]] = phobos.load %{{.*}}[%[[AT]], %{{.*}}] {in_bounds = array<i1: true, false>}
// CHECK: scf.yield %{{.*}}, %[[LOADED]]
// CHECK: phobos.pipeline_stages = 4
// CHECK: phobos.wgmma_wait
#rla = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#rlb = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 4], order = [0, 1]>
#rwg = #phobos.mma<warpsPerCTA = [8, 1]>
#rsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 1, 8], atom = 32>
#rsb = #phobos.shared<order = [0, 1], padding = 0, swizzle = [4, 1, 8], atom = 32>

phobos.kernel @registers(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]}, %B: !phobos.tensor<?x?xf32> {phobos.dims = ["K", "N"]}, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "tf32", aligned = {K = 4 : i64, N = 4 : i64}} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #rwg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %main = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<128x128xf32, #rwg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf32> -> !phobos.tile<128x32xf32, #rla>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf32, #rla> -> !phobos.smem<128x32xf32, #rsa>
    %b = phobos.load %B[%kk, %n0] {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x128xf32, #rlb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf32, #rlb> -> !phobos.smem<32x128xf32, #rsb>
    %d = phobos.dot %sa, %sb, %acc precision(tf32) kind(wgmma) : !phobos.smem<128x32xf32, #rsa>, !phobos.smem<32x128xf32, #rsb>, !phobos.tile<128x128xf32, #rwg> -> !phobos.tile<128x128xf32, #rwg>
    scf.yield %d : !phobos.tile<128x128xf32, #rwg>
  }
  phobos.store %main, %C[%m0, %n0] : !phobos.tile<128x128xf32, #rwg>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A loop over i64 bounds: the ring's arithmetic runs in i64 and the slots
// the buffers take are narrowed to i32 (an i64 slot reached the LLVM
// lowering as a mismatched llvm.mul).
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>

// CHECK-LABEL: phobos.kernel @wide
// CHECK: %[[FIRST:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: phobos.buffer_slot %{{.*}}[%[[FIRST]]] lag 0
// CHECK: scf.for {{.*}} : i64 {
// CHECK: %[[REM:.*]] = arith.remsi %{{.*}} : i64
// CHECK-NEXT: %[[SLOT:.*]] = arith.trunci %[[REM]] : i64 to i32
// CHECK: phobos.buffer_slot %{{.*}}[%[[SLOT]]] lag 0
phobos.kernel @wide(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m0: i32, %n0: i32, %k: i64)
    attributes {max_threads = 256 : i32, pipeline, pipeline_stages = 3 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i64
  %c32 = arith.constant 32 : i64
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x128xf32, #mma>
  %main = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x128xf32, #mma>) : i64 {
    %k32 = arith.trunci %kk : i64 to i32
    %a = phobos.load %A[%m0, %k32] {in_bounds = array<i1: true, true>} : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %sa = phobos.local_alloc %a : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %b = phobos.load %B[%k32, %n0] {in_bounds = array<i1: true, true>} : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %d = phobos.dot %sa, %sb, %acc kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %d : !phobos.tile<64x128xf32, #mma>
  }
  phobos.store %main, %C[%m0, %n0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A branch between the dot and its retirement (a causal mask's, in
// attention) issues and retires no wgmma group: the release is found past
// it, as without it. Released only with release-everywhere here (the dot
// retires in the next iteration, the GEMM form).
// CHECK-LABEL: phobos.kernel @masked
// CHECK-NOT: mbarrier_arrive
// CHECK: phobos.return
// EVERY-LABEL: phobos.kernel @masked
// EVERY: %[[EMPTY:.*]] = phobos.local_barriers {arrivals = 8 : i32}
// EVERY: scf.for
// EVERY: phobos.dot %{{.*}}, %{{.*}}, %{{.*}} kind(wgmma) {in_flight = 1 : i32}
// EVERY: phobos.mbarrier_arrive %[[EMPTY]]
// EVERY: phobos.tma_copy %{{.*}} after %[[EMPTY]]
// EVERY: scf.if
#tla = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#tlb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#tsb = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

phobos.kernel @masked(%A: !phobos.tensor<?x?xf16> {phobos.dims = ["M", "K"]}, %B: !phobos.tensor<?x?xf16> {phobos.dims = ["K", "N"]}, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %m0: i32, %n0: i32)
    attributes {max_threads = 256 : i32, pipeline, tensorcore = "f16", aligned = {K = 8 : i64, N = 8 : i64}} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #twg>
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %main:2 = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %init, %x = %init) -> (!phobos.tile<128x128xf32, #twg>, !phobos.tile<128x128xf32, #twg>) : i32 {
    %a = phobos.load %A[%m0, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x32xf16, #tla>
    %sa = phobos.local_alloc %a : !phobos.tile<128x32xf16, #tla> -> !phobos.smem<128x32xf16, #tsa>
    %b = phobos.load %B[%kk, %n0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #tlb>
    %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #tlb> -> !phobos.smem<32x128xf16, #tsb>
    %d = phobos.dot %sa, %sb, %acc kind(wgmma) : !phobos.smem<128x32xf16, #tsa>, !phobos.smem<32x128xf16, #tsb>, !phobos.tile<128x128xf32, #twg> -> !phobos.tile<128x128xf32, #twg>
    %below = arith.cmpi slt, %kk, %m0 : i32
    %e = scf.if %below -> (!phobos.tile<128x128xf32, #twg>) {
      scf.yield %x : !phobos.tile<128x128xf32, #twg>
    } else {
      %h = phobos.mul %zero, %x : f32, !phobos.tile<128x128xf32, #twg>
      scf.yield %h : !phobos.tile<128x128xf32, #twg>
    }
    scf.yield %d, %e : !phobos.tile<128x128xf32, #twg>, !phobos.tile<128x128xf32, #twg>
  }
  %sum = phobos.add %main#0, %main#1 : !phobos.tile<128x128xf32, #twg>, !phobos.tile<128x128xf32, #twg>
  phobos.store %sum, %C[%m0, %n0] : !phobos.tile<128x128xf32, #twg>, !phobos.tensor<?x?xf32>
  phobos.return
}
