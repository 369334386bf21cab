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
