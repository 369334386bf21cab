// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-pingpong))' --split-input-file | FileCheck %s

#mma = #phobos.mma<warpsPerCTA = [8, 1]>
#sw = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#pl = #phobos.shared<order = [0], padding = 0>

// Attention's consumer loop after tile-defer-dots and tile-warp-specialize:
// both MMAs of an iteration are issued asynchronously, then the softmax
// works on S. The two consumer warpgroups take turns around the MMAs: the
// turn is taken after the slot's mbarrier wait, right before the first
// dot, and given right after the last one, before any wait for them; the
// last warpgroup gives the first its turn before the loop, and the first
// takes the final one back after it.
// CHECK-LABEL: phobos.kernel @attention
// CHECK: } consumer(232) {
// CHECK: phobos.fill
// CHECK: phobos.warpgroup_turn start
// CHECK-NEXT: scf.for
// CHECK: phobos.mbarrier_wait
// CHECK-NEXT: phobos.buffer_slot
// CHECK-NEXT: phobos.warpgroup_turn take
// CHECK-NEXT: phobos.dot {{.*}} transpose_b kind(wgmma) {in_flight = 1 : i32}
// CHECK-NEXT: phobos.buffer_slot
// CHECK-NEXT: phobos.cast
// CHECK-NEXT: phobos.dot {{.*}} kind(wgmma) {in_flight = 2 : i32}
// CHECK-NEXT: phobos.warpgroup_turn give
// CHECK-NEXT: phobos.wgmma_wait
// CHECK: phobos.exp
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: phobos.warpgroup_turn finish
phobos.kernel @attention(%n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %kbuf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %vbuf = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %qbuf = phobos.local_buffer {offset = 32768 : i64} : !phobos.smem<1x128x64xf16, #sw>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 49152 : i64} : !phobos.smem<2xi64, #pl>
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    %q = phobos.buffer_slot %qbuf[%c0] lag 0 : !phobos.smem<1x128x64xf16, #sw> -> !phobos.smem<128x64xf16, #sw>
    %acc0 = phobos.fill %zero : !phobos.tile<128x64xf32, #mma>
    %r:2 = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %acc0, %p = %acc0) -> (!phobos.tile<128x64xf32, #mma>, !phobos.tile<128x64xf32, #mma>) : i32 {
      phobos.mbarrier_wait %full[%c0], %c0 : !phobos.smem<2xi64, #pl>
      %k = phobos.buffer_slot %kbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
      %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw> -> !phobos.tile<128x64xf32, #mma>
      %v = phobos.buffer_slot %vbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
      %p16 = phobos.cast %p : !phobos.tile<128x64xf32, #mma> to !phobos.tile<128x64xf16, #mma>
      %o = phobos.dot %p16, %v, %acc kind(wgmma) {in_flight = 1 : i32} : !phobos.tile<128x64xf16, #mma>, !phobos.smem<64x64xf16, #sw>, !phobos.tile<128x64xf32, #mma> -> !phobos.tile<128x64xf32, #mma>
      %sw = phobos.wgmma_wait %s {pending = 1 : i32} : !phobos.tile<128x64xf32, #mma>
      %e = phobos.exp %sw : !phobos.tile<128x64xf32, #mma>
      %ow = phobos.wgmma_wait %o holding %p16 : !phobos.tile<128x64xf16, #mma> {pending = 0 : i32} : !phobos.tile<128x64xf32, #mma>
      scf.yield %ow, %e : !phobos.tile<128x64xf32, #mma>, !phobos.tile<128x64xf32, #mma>
    }
  }
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [8, 1]>
#sw = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#pl = #phobos.shared<order = [0], padding = 0>

// A GEMM's main loop has nothing but its MMAs: no turns.
// CHECK-LABEL: phobos.kernel @gemm
// CHECK-NOT: phobos.warpgroup_turn
// CHECK: phobos.return
phobos.kernel @gemm(%n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %abuf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x128x64xf16, #sw>
  %bbuf = phobos.local_buffer {offset = 32768 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 49152 : i64} : !phobos.smem<2xi64, #pl>
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    %acc0 = phobos.fill %zero : !phobos.tile<128x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (!phobos.tile<128x64xf32, #mma>) : i32 {
      phobos.mbarrier_wait %full[%c0], %c0 : !phobos.smem<2xi64, #pl>
      %a = phobos.buffer_slot %abuf[%c0] lag 0 : !phobos.smem<2x128x64xf16, #sw> -> !phobos.smem<128x64xf16, #sw>
      %b = phobos.buffer_slot %bbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
      %d = phobos.dot %a, %b, %acc kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw>, !phobos.tile<128x64xf32, #mma> -> !phobos.tile<128x64xf32, #mma>
      scf.yield %d : !phobos.tile<128x64xf32, #mma>
    }
  }
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [4, 1]>
#sw = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#pl = #phobos.shared<order = [0], padding = 0>

// One consumer warpgroup has nobody to take turns with.
// CHECK-LABEL: phobos.kernel @one_group
// CHECK-NOT: phobos.warpgroup_turn
// CHECK: phobos.return
phobos.kernel @one_group(%n: i32) attributes {max_threads = 128 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %kbuf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %qbuf = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<1x64x64xf16, #sw>
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    %q = phobos.buffer_slot %qbuf[%c0] lag 0 : !phobos.smem<1x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
    %acc0 = phobos.fill %zero : !phobos.tile<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (!phobos.tile<64x64xf32, #mma>) : i32 {
      %k = phobos.buffer_slot %kbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
      %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<64x64xf16, #sw>, !phobos.smem<64x64xf16, #sw> -> !phobos.tile<64x64xf32, #mma>
      %sw = phobos.wgmma_wait %s {pending = 0 : i32} : !phobos.tile<64x64xf32, #mma>
      %e = phobos.exp %sw : !phobos.tile<64x64xf32, #mma>
      %n2 = phobos.add %acc, %e : !phobos.tile<64x64xf32, #mma>, !phobos.tile<64x64xf32, #mma>
      scf.yield %n2 : !phobos.tile<64x64xf32, #mma>
    }
  }
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [8, 1]>
#sw = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

// Between the MMAs, a reduction (whose lowering may wait for every
// consumer thread) or a synchronous dot rules the turns out: a warpgroup
// would wait there for the other one, which waits for its turn.
// CHECK-LABEL: phobos.kernel @blocked_between
// CHECK-NOT: phobos.warpgroup_turn
// CHECK-LABEL: phobos.kernel @synchronous
// CHECK-NOT: phobos.warpgroup_turn
// CHECK: phobos.return
phobos.kernel @blocked_between(%n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %kbuf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %qbuf = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<1x128x64xf16, #sw>
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    %q = phobos.buffer_slot %qbuf[%c0] lag 0 : !phobos.smem<1x128x64xf16, #sw> -> !phobos.smem<128x64xf16, #sw>
    %acc0 = phobos.fill %zero : !phobos.tile<128x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (!phobos.tile<128x64xf32, #mma>) : i32 {
      %k = phobos.buffer_slot %kbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
      %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw> -> !phobos.tile<128x64xf32, #mma>
      %m = phobos.reduce max %acc along 1 : !phobos.tile<128x64xf32, #mma> -> !phobos.tile<128x1xf32, #mma>
      %t = phobos.dot %q, %k, %acc transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw>, !phobos.tile<128x64xf32, #mma> -> !phobos.tile<128x64xf32, #mma>
      %sw = phobos.wgmma_wait %s {pending = 1 : i32} : !phobos.tile<128x64xf32, #mma>
      %tw = phobos.wgmma_wait %t {pending = 0 : i32} : !phobos.tile<128x64xf32, #mma>
      %e = phobos.sub %sw, %m : !phobos.tile<128x64xf32, #mma>, !phobos.tile<128x1xf32, #mma>
      %n2 = phobos.add %tw, %e : !phobos.tile<128x64xf32, #mma>, !phobos.tile<128x64xf32, #mma>
      scf.yield %n2 : !phobos.tile<128x64xf32, #mma>
    }
  }
  phobos.return
}
phobos.kernel @synchronous(%n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %kbuf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %qbuf = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<1x128x64xf16, #sw>
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    %q = phobos.buffer_slot %qbuf[%c0] lag 0 : !phobos.smem<1x128x64xf16, #sw> -> !phobos.smem<128x64xf16, #sw>
    %acc0 = phobos.fill %zero : !phobos.tile<128x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (!phobos.tile<128x64xf32, #mma>) : i32 {
      %k = phobos.buffer_slot %kbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
      %s = phobos.dot %q, %k transpose_b kind(wgmma) : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw> -> !phobos.tile<128x64xf32, #mma>
      %e = phobos.exp %s : !phobos.tile<128x64xf32, #mma>
      %n2 = phobos.add %acc, %e : !phobos.tile<128x64xf32, #mma>, !phobos.tile<128x64xf32, #mma>
      scf.yield %n2 : !phobos.tile<128x64xf32, #mma>
    }
  }
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [8, 1]>
#sw = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>

// Without a producer warpgroup the consumers also issue the copies: no
// turns (the kernel is not split).
// CHECK-LABEL: phobos.kernel @not_split
// CHECK-NOT: phobos.warpgroup_turn
// CHECK: phobos.return
phobos.kernel @not_split(%n: i32) attributes {max_threads = 256 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %kbuf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %qbuf = phobos.local_buffer {offset = 16384 : i64} : !phobos.smem<1x128x64xf16, #sw>
  %q = phobos.buffer_slot %qbuf[%c0] lag 0 : !phobos.smem<1x128x64xf16, #sw> -> !phobos.smem<128x64xf16, #sw>
  %acc0 = phobos.fill %zero : !phobos.tile<128x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (!phobos.tile<128x64xf32, #mma>) : i32 {
    %k = phobos.buffer_slot %kbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
    %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw> -> !phobos.tile<128x64xf32, #mma>
    %sw = phobos.wgmma_wait %s {pending = 0 : i32} : !phobos.tile<128x64xf32, #mma>
    %e = phobos.exp %sw : !phobos.tile<128x64xf32, #mma>
    %n2 = phobos.add %acc, %e : !phobos.tile<128x64xf32, #mma>, !phobos.tile<128x64xf32, #mma>
    scf.yield %n2 : !phobos.tile<128x64xf32, #mma>
  }
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [8, 1]>
#sw = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#pl = #phobos.shared<order = [0], padding = 0>

// A loop unswitched on a kernel argument (causal attention) sits in a
// branch of the consumers' scf.if: its warpgroups take turns there too.
// CHECK-LABEL: phobos.kernel @unswitched
// CHECK: } consumer(232) {
// CHECK: scf.if
// CHECK: phobos.warpgroup_turn start
// CHECK-NEXT: scf.for
// CHECK: phobos.warpgroup_turn take
// CHECK-NEXT: phobos.dot {{.*}} transpose_b kind(wgmma) {in_flight = 1 : i32}
// CHECK: phobos.warpgroup_turn give
// CHECK: phobos.warpgroup_turn finish
// CHECK: } else {
// CHECK: phobos.warpgroup_turn start
// CHECK-NEXT: scf.for
// CHECK: phobos.warpgroup_turn finish
phobos.kernel @unswitched(%n: i32, %flag: i1) attributes {max_threads = 256 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %kbuf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<2x64x64xf16, #sw>
  %qbuf = phobos.local_buffer {offset = 32768 : i64} : !phobos.smem<1x128x64xf16, #sw>
  %full = phobos.local_barriers {arrivals = 1 : i32, offset = 49152 : i64} : !phobos.smem<2xi64, #pl>
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    %q = phobos.buffer_slot %qbuf[%c0] lag 0 : !phobos.smem<1x128x64xf16, #sw> -> !phobos.smem<128x64xf16, #sw>
    %acc0 = phobos.fill %zero : !phobos.tile<128x64xf32, #mma>
    %r = scf.if %flag -> (!phobos.tile<128x64xf32, #mma>) {
      %t = scf.for %i = %c0 to %n step %c64 iter_args(%p = %acc0) -> (!phobos.tile<128x64xf32, #mma>) : i32 {
        phobos.mbarrier_wait %full[%c0], %c0 : !phobos.smem<2xi64, #pl>
        %k = phobos.buffer_slot %kbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
        %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw> -> !phobos.tile<128x64xf32, #mma>
        %sw = phobos.wgmma_wait %s {pending = 0 : i32} : !phobos.tile<128x64xf32, #mma>
        %e = phobos.exp %sw : !phobos.tile<128x64xf32, #mma>
        scf.yield %e : !phobos.tile<128x64xf32, #mma>
      }
      scf.yield %t : !phobos.tile<128x64xf32, #mma>
    } else {
      %t = scf.for %i = %c0 to %n step %c64 iter_args(%p = %acc0) -> (!phobos.tile<128x64xf32, #mma>) : i32 {
        phobos.mbarrier_wait %full[%c0], %c0 : !phobos.smem<2xi64, #pl>
        %k = phobos.buffer_slot %kbuf[%c0] lag 0 : !phobos.smem<2x64x64xf16, #sw> -> !phobos.smem<64x64xf16, #sw>
        %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : !phobos.smem<128x64xf16, #sw>, !phobos.smem<64x64xf16, #sw> -> !phobos.tile<128x64xf32, #mma>
        %sw = phobos.wgmma_wait %s {pending = 0 : i32} : !phobos.tile<128x64xf32, #mma>
        %e = phobos.exp %sw : !phobos.tile<128x64xf32, #mma>
        scf.yield %e : !phobos.tile<128x64xf32, #mma>
      }
      scf.yield %t : !phobos.tile<128x64xf32, #mma>
    }
  }
  phobos.return
}
