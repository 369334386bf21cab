// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-promote-shared))' --split-input-file | FileCheck %s

// Each register-tile operand of a dot is staged in a shared-memory buffer
// laid out for the dot's kind, rows padded by 16 bytes: FMA stores A
// transposed (M contiguous) and B row-major (N contiguous); mma.sync
// stores both K-contiguous. f32 operands that an mma.sync dot rounds to
// f16/bf16 are converted first. An operand is staged where it is defined,
// so one defined outside a loop is staged once, outside it, and a tile that
// several dots read the same way is staged once for all of them.

#acc = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#la = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// FMA: A [M, K] is stored with M contiguous (order [0, 1]), B [K, N] with N
// contiguous (order [1, 0]); 16 bytes of padding are 4 f32. The buffer
// keeps the tile's shape and element type, and the dot reads the buffers.
// CHECK-LABEL: phobos.kernel @fma
// CHECK: scf.for
// CHECK-NEXT: %[[A:.*]] = phobos.load
// CHECK-NEXT: %[[SA:.*]] = phobos.local_alloc %[[A]] : !phobos.tile<64x16xf32, #phobos.blocked<{{.*}}>> -> !phobos.smem<64x16xf32, #phobos.shared<order = [0, 1], padding = 4>>
// CHECK-NEXT: %[[B:.*]] = phobos.load
// CHECK-NEXT: %[[SB:.*]] = phobos.local_alloc %[[B]] : !phobos.tile<16x64xf32, #phobos.blocked<{{.*}}>> -> !phobos.smem<16x64xf32, #phobos.shared<order = [1, 0], padding = 4>>
// CHECK-NEXT: phobos.dot %[[SA]], %[[SB]], %{{.*}} kind(fma) : !phobos.smem<64x16xf32, #phobos.shared<order = [0, 1], padding = 4>>, !phobos.smem<16x64xf32, #phobos.shared<order = [1, 0], padding = 4>>, !phobos.tile<64x64xf32, {{.*}}> -> !phobos.tile<64x64xf32, {{.*}}>
phobos.kernel @fma(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32, #acc>
  %r = scf.for %kk = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32, #acc>) : i32 {
    %a = phobos.load %A[%m, %kk] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32, #la>
    %b = phobos.load %B[%kk, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32, #lb>
    %d = phobos.dot %a, %b, %acc kind(fma) : !phobos.tile<64x16xf32, #la>, !phobos.tile<16x64xf32, #lb>, !phobos.tile<64x64xf32, #acc> -> !phobos.tile<64x64xf32, #acc>
    scf.yield %d : !phobos.tile<64x64xf32, #acc>
  }
  phobos.store %r, %C[%m, %m] : !phobos.tile<64x64xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#acc = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#l64 = #phobos.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// FMA with transpose_b: B^T [N, K] is stored N-contiguous (order [0, 1]);
// f64 rows are padded by 2 elements (16 bytes). An FMA dot that rounds to
// f16 (precision(f16), K too small for mma) keeps its f32 operands: the
// rounding happens as they are read.
// CHECK-LABEL: phobos.kernel @fma_variants
// CHECK: %[[SA:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<64x16xf32, #phobos.shared<order = [0, 1], padding = 4>>
// CHECK: %[[SBT:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<64x16xf32, #phobos.shared<order = [0, 1], padding = 4>>
// CHECK-NEXT: phobos.dot %[[SA]], %[[SBT]] transpose_b kind(fma)
// CHECK: %[[SA64:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<64x8xf64, #phobos.shared<order = [0, 1], padding = 2>>
// CHECK: %[[SB64:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<8x64xf64, #phobos.shared<order = [1, 0], padding = 2>>
// CHECK-NEXT: phobos.dot %[[SA64]], %[[SB64]] kind(fma)
// CHECK-NOT: phobos.cast
// CHECK: %[[SA8:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<64x8xf32, #phobos.shared<order = [0, 1], padding = 4>>
// CHECK: %[[SB8:.*]] = phobos.local_alloc %{{.*}} -> !phobos.smem<8x64xf32, #phobos.shared<order = [1, 0], padding = 4>>
// CHECK-NEXT: phobos.dot %[[SA8]], %[[SB8]] precision(f16) kind(fma) : !phobos.smem<64x8xf32, {{.*}}>, !phobos.smem<8x64xf32, {{.*}}>
phobos.kernel @fma_variants(%x: f32, %y: f64) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %x : !phobos.tile<64x16xf32, #l>
  %bt = phobos.fill %x : !phobos.tile<64x16xf32, #l>
  %d0 = phobos.dot %a, %bt transpose_b kind(fma) : !phobos.tile<64x16xf32, #l>, !phobos.tile<64x16xf32, #l> -> !phobos.tile<64x64xf32, #acc>
  %a64 = phobos.fill %y : !phobos.tile<64x8xf64, #l64>
  %b64 = phobos.fill %y : !phobos.tile<8x64xf64, #l64>
  %d1 = phobos.dot %a64, %b64 kind(fma) : !phobos.tile<64x8xf64, #l64>, !phobos.tile<8x64xf64, #l64> -> !phobos.tile<64x64xf64, #acc>
  %a8 = phobos.fill %x : !phobos.tile<64x8xf32, #l>
  %b8 = phobos.fill %x : !phobos.tile<8x64xf32, #l>
  %d2 = phobos.dot %a8, %b8 precision(f16) kind(fma) : !phobos.tile<64x8xf32, #l>, !phobos.tile<8x64xf32, #l> -> !phobos.tile<64x64xf32, #acc>
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [2, 2]>
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// mma.sync with 16-bit operands: every buffer keeps the tile's rows
// (order [1, 0]): A [M, K] and B^T [N, K] are K-contiguous as the fragments
// are, and B [K, N] stays N-contiguous because ldmatrix.trans transposes it
// on the way to registers; 16 bytes are 8 f16. Both dots read %a as A: one
// buffer serves both.
// CHECK-LABEL: phobos.kernel @mma
// CHECK: %[[A:.*]] = phobos.load
// CHECK-NEXT: %[[SA:.*]] = phobos.local_alloc %[[A]] : {{.*}} -> !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: %[[B:.*]] = phobos.load
// CHECK-NEXT: %[[SB:.*]] = phobos.local_alloc %[[B]] : {{.*}} -> !phobos.smem<16x64xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: %[[BT:.*]] = phobos.load
// CHECK-NEXT: %[[SBT:.*]] = phobos.local_alloc %[[BT]] : {{.*}} -> !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: phobos.dot %[[SA]], %[[SB]] kind(mma_sync) : !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x64xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NEXT: phobos.dot %[[SA]], %[[SBT]] transpose_b kind(mma_sync) : !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
phobos.kernel @mma(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16, #la>
  %b = phobos.load %A[%c0, %m] : !phobos.tensor<?x?xf16> -> !phobos.tile<16x64xf16, #lb>
  %bt = phobos.load %A[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16, #la>
  %d0 = phobos.dot %a, %b kind(mma_sync) : !phobos.tile<64x16xf16, #la>, !phobos.tile<16x64xf16, #lb> -> !phobos.tile<64x64xf32, #mma>
  %d1 = phobos.dot %a, %bt transpose_b kind(mma_sync) : !phobos.tile<64x16xf16, #la>, !phobos.tile<64x16xf16, #la> -> !phobos.tile<64x64xf32, #mma>
  phobos.store %d0, %C[%m, %m] : !phobos.tile<64x64xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.store %d1, %C[%m, %m] : !phobos.tile<64x64xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [2, 2]>
#la = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// f32 operands of an mma.sync dot with precision(f16) / precision(bf16) are
// cast (keeping their layout) before they are stored, so the buffers hold
// f16 / bf16 (padding 8); with precision(tf32) they stay f32 (padding 4),
// and B is stored K-contiguous: tf32 fragments are read element by element.
// CHECK-LABEL: phobos.kernel @mma_f16
// CHECK-SAME: (%[[X:[^:]*]]: f32)
// CHECK: %[[A:.*]] = phobos.fill %[[X]] : !phobos.tile<64x16xf32, [[LA:#phobos.blocked<[^>]*>]]>
// CHECK-NEXT: %[[AH:.*]] = phobos.cast %[[A]] : !phobos.tile<64x16xf32, [[LA]]> to !phobos.tile<64x16xf16, [[LA]]>
// CHECK-NEXT: %[[SA:.*]] = phobos.local_alloc %[[AH]] : !phobos.tile<64x16xf16, [[LA]]> -> !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: %[[B:.*]] = phobos.fill %[[X]] : !phobos.tile<16x64xf32, [[LB:#phobos.blocked<[^>]*>]]>
// CHECK-NEXT: %[[BH:.*]] = phobos.cast %[[B]] : !phobos.tile<16x64xf32, [[LB]]> to !phobos.tile<16x64xf16, [[LB]]>
// CHECK-NEXT: %[[SB:.*]] = phobos.local_alloc %[[BH]] : !phobos.tile<16x64xf16, [[LB]]> -> !phobos.smem<16x64xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: phobos.dot %[[SA]], %[[SB]] precision(f16) kind(mma_sync) : !phobos.smem<64x16xf16, {{.*}}>, !phobos.smem<16x64xf16, {{.*}}> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
phobos.kernel @mma_f16(%x: f32) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %x : !phobos.tile<64x16xf32, #la>
  %b = phobos.fill %x : !phobos.tile<16x64xf32, #lb>
  %d = phobos.dot %a, %b precision(f16) kind(mma_sync) : !phobos.tile<64x16xf32, #la>, !phobos.tile<16x64xf32, #lb> -> !phobos.tile<64x64xf32, #mma>
  phobos.return
}

// CHECK-LABEL: phobos.kernel @mma_bf16
// CHECK: %[[A:.*]] = phobos.fill
// CHECK-NEXT: %[[AB:.*]] = phobos.cast %[[A]] : {{.*}} to !phobos.tile<64x16xbf16, {{.*}}>
// CHECK-NEXT: %[[SA:.*]] = phobos.local_alloc %[[AB]] : {{.*}} -> !phobos.smem<64x16xbf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: %[[B:.*]] = phobos.fill
// CHECK-NEXT: %[[BB:.*]] = phobos.cast %[[B]] : {{.*}} to !phobos.tile<16x64xbf16, {{.*}}>
// CHECK-NEXT: %[[SB:.*]] = phobos.local_alloc %[[BB]] : {{.*}} -> !phobos.smem<16x64xbf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: phobos.dot %[[SA]], %[[SB]] precision(bf16) kind(mma_sync)
phobos.kernel @mma_bf16(%x: f32) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %x : !phobos.tile<64x16xf32, #la>
  %b = phobos.fill %x : !phobos.tile<16x64xf32, #lb>
  %d = phobos.dot %a, %b precision(bf16) kind(mma_sync) : !phobos.tile<64x16xf32, #la>, !phobos.tile<16x64xf32, #lb> -> !phobos.tile<64x64xf32, #mma>
  phobos.return
}

// CHECK-LABEL: phobos.kernel @mma_tf32
// CHECK-NOT: phobos.cast
// CHECK: %[[A:.*]] = phobos.fill
// CHECK-NEXT: %[[SA:.*]] = phobos.local_alloc %[[A]] : {{.*}} -> !phobos.smem<64x16xf32, #phobos.shared<order = [1, 0], padding = 4>>
// CHECK-NEXT: %[[B:.*]] = phobos.fill
// CHECK-NEXT: %[[SB:.*]] = phobos.local_alloc %[[B]] : {{.*}} -> !phobos.smem<16x64xf32, #phobos.shared<order = [0, 1], padding = 4>>
// CHECK-NEXT: phobos.dot %[[SA]], %[[SB]] precision(tf32) kind(mma_sync)
phobos.kernel @mma_tf32(%x: f32) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %x : !phobos.tile<64x16xf32, #la>
  %b = phobos.fill %x : !phobos.tile<16x64xf32, #lb>
  %d = phobos.dot %a, %b precision(tf32) kind(mma_sync) : !phobos.tile<64x16xf32, #la>, !phobos.tile<16x64xf32, #lb> -> !phobos.tile<64x64xf32, #mma>
  phobos.return
}

// A 16-bit tile read as A and as B of an mma.sync dot is stored once: both
// keep its rows.
// CHECK-LABEL: phobos.kernel @two_ways
// CHECK: %[[X:.*]] = phobos.cast
// CHECK-NEXT: %[[S:.*]] = phobos.local_alloc %[[X]] : {{.*}} -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NOT: local_alloc
// CHECK: phobos.dot %[[S]], %[[S]] kind(mma_sync)
phobos.kernel @two_ways(%x: f32) attributes {max_threads = 128 : i32} {
  %f = phobos.fill %x : !phobos.tile<64x64xf32, #lb>
  %h = phobos.cast %f : !phobos.tile<64x64xf32, #lb> to !phobos.tile<64x64xf16, #lb>
  %d = phobos.dot %h, %h kind(mma_sync) : !phobos.tile<64x64xf16, #lb>, !phobos.tile<64x64xf16, #lb> -> !phobos.tile<64x64xf32, #mma>
  phobos.return
}

// -----

#mma = #phobos.mma<warpsPerCTA = [2, 2]>
#lq = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// Attention's query block is loaded before the loop: it is staged once,
// right after its load and outside the loop; the key block, loaded in the
// loop, is staged in the loop (once for the two dots that read it
// K-contiguous). A loop-carried operand is staged at the start of the loop
// body.
// CHECK-LABEL: phobos.kernel @outside_loop
// CHECK: %[[Q:.*]] = phobos.load
// CHECK-NEXT: %[[SQ:.*]] = phobos.local_alloc %[[Q]] : {{.*}} -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NOT: local_alloc
// CHECK: scf.for %{{.*}} iter_args(%{{[^ ]*}} = %{{[^ ]*}}, %[[S:[^ ]*]] = %{{[^ ]*}}) ->
// CHECK-NEXT: %[[SS:.*]] = phobos.local_alloc %[[S]] : {{.*}} -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: %[[K:.*]] = phobos.load
// CHECK-NEXT: %[[SK:.*]] = phobos.local_alloc %[[K]] : {{.*}} -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 8>>
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[SQ]], %[[SK]], %{{.*}} transpose_b kind(mma_sync)
// CHECK-NEXT: phobos.dot %[[SK]], %[[SS]], %[[D]] kind(mma_sync)
phobos.kernel @outside_loop(%Q: !phobos.tensor<?x64xf16>, %K: !phobos.tensor<?x64xf16>, %O: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %K[0] : !phobos.tensor<?x64xf16>
  %q = phobos.load %Q[%m, %c0] : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #lq>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32, #mma>
  %s0 = phobos.load %Q[%c0, %c0] : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #lq>
  %r:2 = scf.for %kb = %c0 to %n step %c64 iter_args(%acc = %init, %s = %s0) -> (!phobos.tile<64x64xf32, #mma>, !phobos.tile<64x64xf16, #lq>) : i32 {
    %k = phobos.load %K[%kb, %c0] : !phobos.tensor<?x64xf16> -> !phobos.tile<64x64xf16, #lq>
    %d = phobos.dot %q, %k, %acc transpose_b kind(mma_sync) : !phobos.tile<64x64xf16, #lq>, !phobos.tile<64x64xf16, #lq>, !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x64xf32, #mma>
    %e = phobos.dot %k, %s, %d kind(mma_sync) : !phobos.tile<64x64xf16, #lq>, !phobos.tile<64x64xf16, #lq>, !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x64xf32, #mma>
    scf.yield %e, %k : !phobos.tile<64x64xf32, #mma>, !phobos.tile<64x64xf16, #lq>
  }
  phobos.store %r#0, %O[%m, %c0] : !phobos.tile<64x64xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#wg = #phobos.mma<warpsPerCTA = [4, 1]>
#sw = #phobos.blocked<sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#la = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// wgmma: both operands with axis 1 contiguous (A and B^T K-major, B
// N-major), in the atoms of the widest swizzle mode that divides the row:
// A's 32 f16 (64 B) swizzled as the hardware's 64-byte mode, B's 128 f16 as
// two 64-element (128-byte) atoms, B^T's 16 f16 (32 B) in the 32-byte mode.
// CHECK-LABEL: phobos.kernel @wgmma_operands
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<64x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>>
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<32x128xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 4, 2], atom = 16>>
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<32x16xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 4, 2], atom = 16>>
// CHECK: phobos.dot %{{.*}}, %{{.*}} transpose_b kind(wgmma)
// A tf32 B [K, N] is stored K-major (order [0, 1]): wgmma reads tf32 only
// so. 32 f32 are one 128-byte atom.
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<64x32xf32, #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 1, 8], atom = 32>>
// CHECK: phobos.local_alloc %{{.*}} -> !phobos.smem<32x64xf32, #phobos.shared<order = [0, 1], padding = 0, swizzle = [4, 1, 8], atom = 32>>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(wgmma)
// With swap_ab the dot reads B's fragments through registers: B stays
// N-major (order [1, 0]), as TMA copies it.
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(wgmma) swap_ab : {{.*}}, !phobos.smem<32x64xf32, #phobos.shared<order = [1, 0], padding = 0, swizzle = [4, 1, 8], atom = 32>>
phobos.kernel @wgmma_operands(%h: f16, %x: f32) attributes {max_threads = 128 : i32} {
  %a = phobos.fill %h : !phobos.tile<64x32xf16, #la>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #lb>
  %d = phobos.dot %a, %b kind(wgmma) : !phobos.tile<64x32xf16, #la>, !phobos.tile<32x128xf16, #lb> -> !phobos.tile<64x128xf32, #wg>
  %a16 = phobos.fill %h : !phobos.tile<64x16xf16, #la>
  %bt = phobos.fill %h : !phobos.tile<32x16xf16, #la>
  %e = phobos.dot %a16, %bt transpose_b kind(wgmma) : !phobos.tile<64x16xf16, #la>, !phobos.tile<32x16xf16, #la> -> !phobos.tile<64x32xf32, #wg>
  %af = phobos.fill %x : !phobos.tile<64x32xf32, #la>
  %bf = phobos.fill %x : !phobos.tile<32x64xf32, #lb>
  %f = phobos.dot %af, %bf precision(tf32) kind(wgmma) : !phobos.tile<64x32xf32, #la>, !phobos.tile<32x64xf32, #lb> -> !phobos.tile<64x64xf32, #wg>
  %g = phobos.dot %af, %bf precision(tf32) kind(wgmma) swap_ab : !phobos.tile<64x32xf32, #la>, !phobos.tile<32x64xf32, #lb> -> !phobos.tile<64x64xf32, #sw>
  phobos.return
}

// -----

#wg = #phobos.mma<warpsPerCTA = [4, 1]>
#lb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// A 16-bit A already in the wgmma's accumulator layout (attention's P) stays
// in registers: only B is staged. An f32 one the dot rounds to f16 is cast
// in registers. A tf32 A is staged (its accumulator registers are not
// wgmma's tf32 A fragments), as is one in another layout.
// CHECK-LABEL: phobos.kernel @register_a
// CHECK: %[[P:.*]] = phobos.fill %{{.*}} : !phobos.tile<64x32xf16, #phobos.mma<warpsPerCTA = [4, 1]>>
// CHECK: %[[SB:.*]] = phobos.local_alloc
// CHECK: phobos.dot %[[P]], %[[SB]] kind(wgmma) : !phobos.tile<64x32xf16, #phobos.mma<warpsPerCTA = [4, 1]>>, !phobos.smem<32x128xf16
// CHECK: %[[Q:.*]] = phobos.fill %{{.*}} : !phobos.tile<64x32xf32
// CHECK: phobos.local_alloc %[[Q]] : !phobos.tile<64x32xf32, #phobos.mma<warpsPerCTA = [4, 1]>> -> !phobos.smem<64x32xf32
// CHECK: %[[QH:.*]] = phobos.cast %[[Q]] : !phobos.tile<64x32xf32, #phobos.mma<warpsPerCTA = [4, 1]>> to !phobos.tile<64x32xf16, #phobos.mma<warpsPerCTA = [4, 1]>>
// CHECK: phobos.dot %[[QH]], %{{.*}} precision(f16) kind(wgmma) : !phobos.tile<64x32xf16
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) kind(wgmma) : !phobos.smem<64x32xf32
phobos.kernel @register_a(%h: f16, %x: f32) attributes {max_threads = 128 : i32} {
  %p = phobos.fill %h : !phobos.tile<64x32xf16, #wg>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #lb>
  %d = phobos.dot %p, %b kind(wgmma) : !phobos.tile<64x32xf16, #wg>, !phobos.tile<32x128xf16, #lb> -> !phobos.tile<64x128xf32, #wg>
  %q = phobos.fill %x : !phobos.tile<64x32xf32, #wg>
  %bq = phobos.fill %x : !phobos.tile<32x128xf32, #lb>
  %e = phobos.dot %q, %bq precision(f16) kind(wgmma) : !phobos.tile<64x32xf32, #wg>, !phobos.tile<32x128xf32, #lb> -> !phobos.tile<64x128xf32, #wg>
  %f = phobos.dot %q, %bq precision(tf32) kind(wgmma) : !phobos.tile<64x32xf32, #wg>, !phobos.tile<32x128xf32, #lb> -> !phobos.tile<64x128xf32, #wg>
  phobos.return
}
