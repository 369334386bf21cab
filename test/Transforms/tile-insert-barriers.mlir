// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers{byte-ranges=true}))' --split-input-file | FileCheck %s --check-prefixes=CHECK,BYTES
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers{byte-ranges=true},tile-insert-barriers{byte-ranges=true}))' --split-input-file | FileCheck %s --check-prefixes=CHECK,BYTES
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers))' --split-input-file | FileCheck %s --check-prefixes=CHECK,WHOLE

// A barrier goes where a shared-memory access may race with one made since
// the last barrier: a read of written memory, a write of read or written
// memory. Nothing is pending when the kernel starts. Running the pass twice
// changes nothing (second RUN line). The BYTES prefix checks accesses
// compared by the bytes they touch (byte-ranges=true), WHOLE shared memory
// as one location (the default, what the pipeline uses).

#s = #phobos.shared<order = [1, 0], padding = 0>

// A read after a write: one barrier between them, none before the write.
// CHECK-LABEL: phobos.kernel @read_after_write
// CHECK-SAME: phobos.barriers
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: phobos.local_alloc
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.local_load
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: phobos.return
phobos.kernel @read_after_write(%x: f32) {
  %t = phobos.fill %x : !phobos.tile<4x8xf32>
  %a = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<4x8xf32> -> !phobos.smem<4x8xf32, #s>
  %y = phobos.local_load %a : !phobos.smem<4x8xf32, #s> -> !phobos.tile<4x8xf32>
  phobos.return
}

// -----

#s = #phobos.shared<order = [1, 0], padding = 0>

// Two buffers in different bytes are written back to back, and one barrier
// serves both reads. A third buffer that reuses the first one's bytes must
// wait until the first is read (write after read); one that reuses no read
// bytes need not.
// As one location, the first write after the reads waits, and with it
// every later write.
// CHECK-LABEL: phobos.kernel @ranges
// CHECK: phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 128 : i64}
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.local_load
// CHECK-NEXT: phobos.local_load
// WHOLE-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 256 : i64}
// BYTES-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 0 : i64}
phobos.kernel @ranges(%x: f32) {
  %t = phobos.fill %x : !phobos.tile<4x8xf32>
  %a = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<4x8xf32> -> !phobos.smem<4x8xf32, #s>
  %b = phobos.local_alloc %t {offset = 128 : i64} : !phobos.tile<4x8xf32> -> !phobos.smem<4x8xf32, #s>
  %y = phobos.local_load %a : !phobos.smem<4x8xf32, #s> -> !phobos.tile<4x8xf32>
  %z = phobos.local_load %b : !phobos.smem<4x8xf32, #s> -> !phobos.tile<4x8xf32>
  %c = phobos.local_alloc %t {offset = 256 : i64} : !phobos.tile<4x8xf32> -> !phobos.smem<4x8xf32, #s>
  %d = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<4x8xf32> -> !phobos.smem<4x8xf32, #s>
  phobos.return
}

// -----

#s = #phobos.shared<order = [1, 0], padding = 0>

// The K loop of a GEMM: each iteration writes A and B and a dot reads
// them. The first write of an iteration waits for the previous iteration's
// dot (write after read), the dot for both writes (read after write): two
// barriers per iteration.
// CHECK-LABEL: phobos.kernel @k_loop
// CHECK: scf.for
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 256 : i64}
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.dot
// CHECK-NEXT: scf.yield
phobos.kernel @k_loop(%x: f32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = phobos.fill %x : !phobos.tile<8x8xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %t) -> (!phobos.tile<8x8xf32>) : i32 {
    %a = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<8x8xf32> -> !phobos.smem<8x8xf32, #s>
    %b = phobos.local_alloc %t {offset = 256 : i64} : !phobos.tile<8x8xf32> -> !phobos.smem<8x8xf32, #s>
    %d = phobos.dot %a, %b, %acc kind(fma) : !phobos.smem<8x8xf32, #s>, !phobos.smem<8x8xf32, #s>, !phobos.tile<8x8xf32> -> !phobos.tile<8x8xf32>
    scf.yield %d : !phobos.tile<8x8xf32>
  }
  phobos.return
}

// -----

#s = #phobos.shared<order = [1, 0], padding = 0>

// A buffer written before a loop and only read in it (attention's Q): one
// barrier before the loop, none in it.
// CHECK-LABEL: phobos.kernel @staged_once
// CHECK: phobos.local_alloc
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: scf.for
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: scf.yield
phobos.kernel @staged_once(%x: f32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = phobos.fill %x : !phobos.tile<8x8xf32>
  %q = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<8x8xf32> -> !phobos.smem<8x8xf32, #s>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %t) -> (!phobos.tile<8x8xf32>) : i32 {
    %y = phobos.local_load %q : !phobos.smem<8x8xf32, #s> -> !phobos.tile<8x8xf32>
    %s = phobos.add %acc, %y : !phobos.tile<8x8xf32>, !phobos.tile<8x8xf32>
    scf.yield %s : !phobos.tile<8x8xf32>
  }
  phobos.return
}

// -----

#s = #phobos.shared<order = [1, 0], padding = 0>

// After a branch, what either side left pending is: the write in the then
// branch makes the read after the if wait.
// CHECK-LABEL: phobos.kernel @branch
// CHECK: scf.if
// CHECK-NEXT: phobos.local_alloc
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: } else {
// CHECK-NEXT: phobos.local_alloc
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.local_load
phobos.kernel @branch(%x: f32, %c: i1) {
  %t = phobos.fill %x : !phobos.tile<4x8xf32>
  %a = scf.if %c -> (!phobos.smem<4x8xf32, #s>) {
    %w = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<4x8xf32> -> !phobos.smem<4x8xf32, #s>
    scf.yield %w : !phobos.smem<4x8xf32, #s>
  } else {
    %v = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<4x8xf32> -> !phobos.smem<4x8xf32, #s>
    scf.yield %v : !phobos.smem<4x8xf32, #s>
  }
  %y = phobos.local_load %a : !phobos.smem<4x8xf32, #s> -> !phobos.tile<4x8xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>
#s = #phobos.shared<order = [1, 0], padding = 0>

// Ops that exchange data through the scratch region wait at a barrier of
// their own between their writes and reads; before them, a barrier only
// where their writes could race. A reduction across two warps reads the
// scratch last, so a buffer written over it afterwards waits (and, by
// bytes, the next exchange waits for that write); a reduction within warps
// uses no shared memory.
// CHECK-LABEL: phobos.kernel @scratch
// CHECK: phobos.reduce sum %{{.*}} along 1
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: phobos.reduce max %{{.*}} along 0
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 0 : i64}
// BYTES-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.convert_layout
phobos.kernel @scratch(%x: f32) attributes {max_threads = 64 : i32, phobos.scratch_offset = 0 : i64} {
  %t = phobos.fill %x : !phobos.tile<4x64xf32, #l>
  %r = phobos.reduce sum %t along 1 : !phobos.tile<4x64xf32, #l> -> !phobos.tile<4x1xf32, #l>
  %m = phobos.reduce max %t along 0 : !phobos.tile<4x64xf32, #l> -> !phobos.tile<1x64xf32, #l>
  %a = phobos.local_alloc %t {offset = 0 : i64} : !phobos.tile<4x64xf32, #l> -> !phobos.smem<4x64xf32, #s>
  %c = phobos.convert_layout %m : !phobos.tile<1x64xf32, #l> -> !phobos.tile<1x64xf32, #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]>>
  phobos.return
}

// -----

// A software pipeline (tile-pipeline's output for a GEMM, 3 stages): the
// copies into a slot land at the async_wait that retires their group, so a
// read of the slot needs that wait and then a barrier. At the top of the
// loop the groups of iterations i and i+1 are in flight; the dot reads
// slot i (lag 0), so all but the newest group must land: `async_wait 1`.
// The copy into slot i+2 overwrites what iteration i-1's dot read (write
// after read): the same barrier serves both, placed before the copy. The
// remainder loop's stores reuse the memory: everything is waited for, then
// a barrier; and nothing is in flight when the kernel returns.
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [2, 4]>
#sh = #phobos.shared<order = [1, 0], padding = 8>

// CHECK-LABEL: phobos.kernel @pipelined
// CHECK-NOT: {{^ *}}phobos.barrier{{$}}
// CHECK-NOT: phobos.async_wait
// CHECK: scf.for
// CHECK-NEXT: arith.divsi
// CHECK-NEXT: arith.remsi
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.remsi
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: phobos.buffer_slot {{.*}} lag 2
// CHECK-NEXT: phobos.async_wait 1
// CHECK-NEXT: phobos.barrier
// CHECK-NEXT: phobos.async_copy
// CHECK-NEXT: phobos.buffer_slot {{.*}} lag 2
// CHECK-NEXT: phobos.async_copy
// CHECK-NEXT: phobos.async_commit
// CHECK-NEXT: phobos.buffer_slot {{.*}} lag 0
// CHECK-NEXT: phobos.buffer_slot {{.*}} lag 0
// CHECK-NEXT: phobos.dot
// CHECK-NEXT: scf.yield
// CHECK: scf.for
// CHECK-NEXT: phobos.load
// CHECK-NEXT: phobos.async_wait 0
// CHECK-NEXT: phobos.barrier
// CHECK-NEXT: phobos.local_alloc
// CHECK-NEXT: phobos.load
// CHECK-NEXT: phobos.local_alloc
// CHECK-NEXT: phobos.barrier
// CHECK-NEXT: phobos.dot
// CHECK: phobos.store
// CHECK-NEXT: phobos.async_wait 0
// CHECK-NEXT: phobos.return
phobos.kernel @pipelined(%arg0: !phobos.tensor<?x?xf16>, %arg1: !phobos.tensor<?x?xf16>, %arg2: !phobos.tensor<?x?xf32>, %arg3: i32, %arg4: i32) attributes {max_threads = 256 : i32, phobos.scratch_offset = 41472 : i64, phobos.shared_bytes = 41472 : i64, pipeline, tensorcore = "f16"} {
  %c64_i32 = arith.constant 64 : i32
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %0 = phobos.fill %cst : !phobos.tile<64x128xf32, #mma>
  %1 = phobos.dim %arg0[1] : !phobos.tensor<?x?xf16>
  %2 = arith.divsi %1, %c32_i32 : i32
  %3 = arith.muli %2, %c32_i32 : i32
  %4 = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<3x64x32xf16, #sh>
  %5 = phobos.local_buffer {offset = 15360 : i64} : !phobos.smem<3x32x128xf16, #sh>
  %6 = arith.cmpi sgt, %3, %c0_i32 : i32
  %7 = phobos.buffer_slot %4[%c0_i32] lag 0 : !phobos.smem<3x64x32xf16, #sh> -> !phobos.smem<64x32xf16, #sh>
  phobos.async_copy %arg0[%arg3, %c0_i32] into %7 if %6 {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16>, !phobos.tile<64x32xf16, #la>, !phobos.smem<64x32xf16, #sh>
  %8 = phobos.buffer_slot %5[%c0_i32] lag 0 : !phobos.smem<3x32x128xf16, #sh> -> !phobos.smem<32x128xf16, #sh>
  phobos.async_copy %arg1[%c0_i32, %arg4] into %8 if %6 {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf16>, !phobos.tile<32x128xf16, #lb>, !phobos.smem<32x128xf16, #sh>
  phobos.async_commit
  %9 = arith.cmpi sgt, %3, %c32_i32 : i32
  %10 = phobos.buffer_slot %4[%c1_i32] lag 1 : !phobos.smem<3x64x32xf16, #sh> -> !phobos.smem<64x32xf16, #sh>
  phobos.async_copy %arg0[%arg3, %c32_i32] into %10 if %9 {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16>, !phobos.tile<64x32xf16, #la>, !phobos.smem<64x32xf16, #sh>
  %11 = phobos.buffer_slot %5[%c1_i32] lag 1 : !phobos.smem<3x32x128xf16, #sh> -> !phobos.smem<32x128xf16, #sh>
  phobos.async_copy %arg1[%c32_i32, %arg4] into %11 if %9 {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf16>, !phobos.tile<32x128xf16, #lb>, !phobos.smem<32x128xf16, #sh>
  phobos.async_commit
  %12 = scf.for %arg5 = %c0_i32 to %3 step %c32_i32 iter_args(%arg6 = %0) -> (!phobos.tile<64x128xf32, #mma>)  : i32 {
    %14 = arith.divsi %arg5, %c32_i32 : i32
    %15 = arith.remsi %14, %c3_i32 : i32
    %16 = arith.addi %14, %c2_i32 : i32
    %17 = arith.remsi %16, %c3_i32 : i32
    %18 = arith.addi %arg5, %c64_i32 : i32
    %19 = arith.cmpi slt, %18, %3 : i32
    %20 = phobos.buffer_slot %4[%17] lag 2 : !phobos.smem<3x64x32xf16, #sh> -> !phobos.smem<64x32xf16, #sh>
    phobos.async_copy %arg0[%arg3, %18] into %20 if %19 {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf16>, !phobos.tile<64x32xf16, #la>, !phobos.smem<64x32xf16, #sh>
    %21 = phobos.buffer_slot %5[%17] lag 2 : !phobos.smem<3x32x128xf16, #sh> -> !phobos.smem<32x128xf16, #sh>
    phobos.async_copy %arg1[%18, %arg4] into %21 if %19 {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf16>, !phobos.tile<32x128xf16, #lb>, !phobos.smem<32x128xf16, #sh>
    phobos.async_commit
    %22 = phobos.buffer_slot %4[%15] lag 0 : !phobos.smem<3x64x32xf16, #sh> -> !phobos.smem<64x32xf16, #sh>
    %23 = phobos.buffer_slot %5[%15] lag 0 : !phobos.smem<3x32x128xf16, #sh> -> !phobos.smem<32x128xf16, #sh>
    %24 = phobos.dot %22, %23, %arg6 kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %24 : !phobos.tile<64x128xf32, #mma>
  } {phobos.pipeline_stages = 3 : i64}
  %13 = scf.for %arg5 = %3 to %1 step %c32_i32 iter_args(%arg6 = %12) -> (!phobos.tile<64x128xf32, #mma>)  : i32 {
    %14 = phobos.load %arg0[%arg3, %arg5] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x32xf16, #la>
    %15 = phobos.local_alloc %14 {offset = 0 : i64} : !phobos.tile<64x32xf16, #la> -> !phobos.smem<64x32xf16, #sh>
    %16 = phobos.load %arg1[%arg5, %arg4] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x128xf16, #lb>
    %17 = phobos.local_alloc %16 {offset = 5120 : i64} : !phobos.tile<32x128xf16, #lb> -> !phobos.smem<32x128xf16, #sh>
    %18 = phobos.dot %15, %17, %arg6 kind(mma_sync) : !phobos.smem<64x32xf16, #sh>, !phobos.smem<32x128xf16, #sh>, !phobos.tile<64x128xf32, #mma> -> !phobos.tile<64x128xf32, #mma>
    scf.yield %18 : !phobos.tile<64x128xf32, #mma>
  }
  phobos.store %13, %arg2[%arg3, %arg4] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}


// -----

// Slots are told apart by their lags, for plain reads and writes too (in
// both modes: two staged buffers never share bytes). The store into the slot
// two iterations ahead needs a barrier after the last reads of that slot;
// the dot kept in flight is retired only by the next dot's wait, so the
// slot the previous iteration's dot read (lag 3 here, 2 one iteration
// later) counts as read until then: one barrier per iteration, before the
// store. None between the store and the dot (they touch different slots),
// none at the end.
#rb = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 4], order = [0, 1]>
#rwg = #phobos.mma<warpsPerCTA = [8, 1]>
#rsa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 1, 8], atom = 32>
#rsb = #phobos.shared<order = [0, 1], padding = 0, swizzle = [4, 1, 8], atom = 32>

// CHECK-LABEL: phobos.kernel @slots_apart
// CHECK: scf.for
// CHECK-NEXT: arith.remsi
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.remsi
// CHECK-NEXT: phobos.buffer_slot {{.*}} lag 2
// CHECK-NEXT: phobos.barrier
// CHECK-NEXT: phobos.local_store
// CHECK-NEXT: phobos.buffer_slot {{.*}} lag 0
// CHECK-NEXT: phobos.buffer_slot {{.*}} lag 0
// CHECK-NEXT: phobos.dot
// CHECK-NEXT: phobos.load
// CHECK-NEXT: scf.yield

phobos.kernel @slots_apart(%A: !phobos.tensor<?x?xf32>, %m0: i32, %n: i32) attributes {max_threads = 256 : i32, tensorcore = "tf32"} {
  %t0 = phobos.load %A[%m0, %m0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x128xf32, #rb>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x128xf32, #rwg>
  %ba = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<4x128x32xf32, #rsa>
  %bb = phobos.local_buffer {offset = 65536 : i64} : !phobos.smem<4x32x128xf32, #rsb>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %t = %t0) -> (!phobos.tile<128x128xf32, #rwg>, !phobos.tile<32x128xf32, #rb>) : i32 {
    %slot = arith.remsi %i, %c4 : i32
    %ahead = arith.addi %i, %c2 : i32
    %next = arith.remsi %ahead, %c4 : i32
    %s2 = phobos.buffer_slot %bb[%next] lag 2 : !phobos.smem<4x32x128xf32, #rsb> -> !phobos.smem<32x128xf32, #rsb>
    phobos.local_store %t into %s2 : !phobos.tile<32x128xf32, #rb>, !phobos.smem<32x128xf32, #rsb>
    %sa = phobos.buffer_slot %ba[%slot] lag 0 : !phobos.smem<4x128x32xf32, #rsa> -> !phobos.smem<128x32xf32, #rsa>
    %sb = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<4x32x128xf32, #rsb> -> !phobos.smem<32x128xf32, #rsb>
    %d = phobos.dot %sa, %sb, %acc precision(tf32) kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x32xf32, #rsa>, !phobos.smem<32x128xf32, #rsb>, !phobos.tile<128x128xf32, #rwg> -> !phobos.tile<128x128xf32, #rwg>
    %t2 = phobos.load %A[%ahead, %m0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x128xf32, #rb>
    scf.yield %d, %t2 : !phobos.tile<128x128xf32, #rwg>, !phobos.tile<32x128xf32, #rb>
  }
  %w = phobos.wgmma_wait %r#0 {pending = 0 : i32} : !phobos.tile<128x128xf32, #rwg>
  phobos.return
}

// -----

// A TMA refill that waits for its slot's release (`after`: tile-pipeline's
// "empty" mbarriers, on which every warp arrives once done with the slot)
// needs no barrier for the reads of its ring's slots, nor for buffers whose
// bytes it does not write (A's, read by the same dot): no barrier in the
// loop, in both modes. The same refill without `after` gets the barrier.
#tl = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#twg = #phobos.mma<warpsPerCTA = [8, 1]>
#tat = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#tpl = #phobos.shared<order = [0], padding = 0>

// CHECK-LABEL: phobos.kernel @released
// CHECK: scf.for
// CHECK-NOT: phobos.barrier
// CHECK: phobos.tma_copy
// CHECK-NOT: phobos.barrier
// CHECK: phobos.mbarrier_arrive
// CHECK-NEXT: scf.yield
phobos.kernel @released(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16"} {
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
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!phobos.tile<128x64xf32, #twg>) : i32 {
    %slot = arith.remsi %i, %c3 : i32
    %ahead = arith.addi %i, %c2 : i32
    %next = arith.remsi %ahead, %c3 : i32
    %fill = arith.divsi %ahead, %c3 : i32
    %k1 = arith.addi %fill, %c1 : i32
    %released = arith.remsi %k1, %c2 : i32
    %s2 = phobos.buffer_slot %bb[%next] lag 2 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.tma_copy %B[%ahead, %c0] into %s2 arrive %full[%next] after %empty, %released : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>, !phobos.smem<3xi64, #tpl>
    %round = arith.divsi %i, %c3 : i32
    %parity = arith.remsi %round, %c2 : i32
    phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<3xi64, #tpl>
    %s0 = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    %d = phobos.dot %sa, %s0, %acc kind(wgmma) : !phobos.smem<128x64xf16, #tat>, !phobos.smem<64x64xf16, #tat>, !phobos.tile<128x64xf32, #twg> -> !phobos.tile<128x64xf32, #twg>
    phobos.mbarrier_arrive %empty[%slot] : !phobos.smem<3xi64, #tpl>
    scf.yield %d : !phobos.tile<128x64xf32, #twg>
  }
  phobos.return
}

// CHECK-LABEL: phobos.kernel @unreleased
// CHECK: scf.for
// CHECK: phobos.barrier
// CHECK-NEXT: phobos.tma_copy
// CHECK-NOT: phobos.barrier
// CHECK: scf.yield
phobos.kernel @unreleased(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<128x64xf32, #twg>
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<128x64xf16, #tl>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<128x64xf16, #tl> -> !phobos.smem<128x64xf16, #tat>
  %bb = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<3x64x64xf16, #tat>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 40992 : i64} : !phobos.smem<3xi64, #tpl>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!phobos.tile<128x64xf32, #twg>) : i32 {
    %slot = arith.remsi %i, %c3 : i32
    %ahead = arith.addi %i, %c2 : i32
    %next = arith.remsi %ahead, %c3 : i32
    %s2 = phobos.buffer_slot %bb[%next] lag 2 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    phobos.tma_copy %B[%ahead, %c0] into %s2 arrive %full[%next] : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #tat>, !phobos.smem<3xi64, #tpl>
    %round = arith.divsi %i, %c3 : i32
    %parity = arith.remsi %round, %c2 : i32
    phobos.mbarrier_wait %full[%slot], %parity : !phobos.smem<3xi64, #tpl>
    %s0 = phobos.buffer_slot %bb[%slot] lag 0 : !phobos.smem<3x64x64xf16, #tat> -> !phobos.smem<64x64xf16, #tat>
    %d = phobos.dot %sa, %s0, %acc kind(wgmma) : !phobos.smem<128x64xf16, #tat>, !phobos.smem<64x64xf16, #tat>, !phobos.tile<128x64xf32, #twg> -> !phobos.tile<128x64xf32, #twg>
    scf.yield %d : !phobos.tile<128x64xf32, #twg>
  }
  phobos.return
}
