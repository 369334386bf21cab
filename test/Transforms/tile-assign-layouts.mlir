// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-assign-layouts))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-assign-layouts))' --split-input-file | FileCheck %s --check-prefix=ALL

// Every tile value gets a layout encoding: no tile type without one is left.
// ALL-NOT: {{!phobos.tile<[0-9x]+(f16|bf16|f32|f64|i1|i32|i64)>}}

// All kernels run 4 warps (@launch(128)).

// A load takes the default coalesced layout: 16 bytes per thread along the
// fastest axis (4 f32, 8 f16), lanes along the fastest axes first, warps
// along the slowest; element-wise ops and the store follow it.
// CHECK-LABEL: phobos.kernel @load_default
// CHECK: %[[X:.*]] = phobos.load %{{.*}} -> !phobos.tile<32x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: %[[Y:.*]] = phobos.exp %[[X]] : !phobos.tile<32x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: phobos.store %[[Y]], %{{.*}} : !phobos.tile<32x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: phobos.load %{{.*}} -> !phobos.tile<64x16xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: phobos.load %{{.*}} -> !phobos.tile<256xf32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
phobos.kernel @load_default(%X: !phobos.tensor<?x?xf32>, %H: !phobos.tensor<?x?xf16>, %V: !phobos.tensor<?xf32>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%m, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x64xf32>
  %y = phobos.exp %x : !phobos.tile<32x64xf32>
  phobos.store %y, %X[%m, %c0] : !phobos.tile<32x64xf32>, !phobos.tensor<?x?xf32>
  %h = phobos.load %H[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
  %v = phobos.load %V[%m] : !phobos.tensor<?xf32> -> !phobos.tile<256xf32>
  phobos.store %h, %H[%m, %c0] : !phobos.tile<64x16xf16>, !phobos.tensor<?x?xf16>
  phobos.store %v, %V[%m] : !phobos.tile<256xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// Where the 16-byte runs along the fastest axis are not a power of two, the
// lanes there are as many as divide them: 24 runs of a 192-wide f16 tile
// take 8 lanes three times over (not 16 lanes one and a half times), 20
// runs of a 160-wide one take 4; a power of two keeps its lanes.
// CHECK-LABEL: phobos.kernel @load_uneven_runs
// CHECK: phobos.load %{{.*}} -> !phobos.tile<64x192xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: phobos.load %{{.*}} -> !phobos.tile<64x160xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: phobos.load %{{.*}} -> !phobos.tile<64x256xf16, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>>
phobos.kernel @load_uneven_runs(%H: !phobos.tensor<?x?xf16>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %H[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x192xf16>
  %b = phobos.load %H[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x160xf16>
  %c = phobos.load %H[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x256xf16>
  phobos.store %a, %H[%m, %c0] : !phobos.tile<64x192xf16>, !phobos.tensor<?x?xf16>
  phobos.store %b, %H[%m, %c0] : !phobos.tile<64x160xf16>, !phobos.tensor<?x?xf16>
  phobos.store %c, %H[%m, %c0] : !phobos.tile<64x256xf16>, !phobos.tensor<?x?xf16>
  phobos.return
}

// -----

// An FMA dot's result takes the accumulator layout (4x4 per thread, warps
// 2x2); the loop-carried accumulator, its initial fill and the add take it
// too, so the loop converts nothing. The operands keep their load layouts
// (they go to shared memory).
// CHECK-LABEL: phobos.kernel @fma_loop
// CHECK: %[[INIT:.*]] = phobos.fill %{{.*}} : !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (!phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>)
// CHECK-NOT: convert_layout
// CHECK: phobos.load %{{.*}} -> !phobos.tile<64x16xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: phobos.load %{{.*}} -> !phobos.tile<16x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NOT: convert_layout
// CHECK: %[[D:.*]] = phobos.dot {{.*}} -> !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[ACC]], %[[D]] : !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>, !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
// CHECK-NEXT: scf.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: phobos.store %[[R]], {{.*}} : !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
phobos.kernel @fma_loop(%A: !phobos.tensor<?x?xf32>, %B: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %r = scf.for %kk = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %a = phobos.load %A[%m, %kk] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x16xf32>
    %b = phobos.load %B[%kk, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x64xf32>
    %d = phobos.dot %a, %b kind(fma) : !phobos.tile<64x16xf32>, !phobos.tile<16x64xf32> -> !phobos.tile<64x64xf32>
    %s = phobos.add %acc, %d : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
    scf.yield %s : !phobos.tile<64x64xf32>
  }
  phobos.store %r, %C[%m, %m] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// An mma.sync dot's result takes #phobos.mma (warps 2x2 for 64x64); the
// accumulator it carries takes it as well, and the load that initialises it
// is moved to that layout rather than converted.
// CHECK-LABEL: phobos.kernel @mma_loop
// CHECK: %[[INIT:.*]] = phobos.load %{{.*}} -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (!phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>)
// CHECK-NOT: convert_layout
// CHECK: %[[D:.*]] = phobos.dot %{{.*}}, %{{.*}}, %[[ACC]] kind(mma_sync) : {{.*}} -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NEXT: scf.yield %[[D]] : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NEXT: }
// CHECK-NEXT: phobos.store %[[R]], {{.*}} : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
phobos.kernel @mma_loop(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %k = phobos.dim %A[1] : !phobos.tensor<?x?xf16>
  %init = phobos.load %C[%m, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x64xf32>
  %r = scf.for %kk = %c0 to %k step %c16 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %a = phobos.load %A[%m, %kk] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
    %b = phobos.load %B[%kk, %m] : !phobos.tensor<?x?xf16> -> !phobos.tile<16x64xf16>
    %d = phobos.dot %a, %b, %acc kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
    scf.yield %d : !phobos.tile<64x64xf32>
  }
  phobos.store %r, %C[%m, %m] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// 12 warps (384 threads, three warpgroups) tile a 192x256 accumulator only
// as a grid that is not a power of two: 3x4 warps, 64x64 a warp.
// CHECK-LABEL: phobos.kernel @mma_twelve_warps
// CHECK: phobos.dot {{.*}} kind(mma_sync) : {{.*}} -> !phobos.tile<192x256xf32, #phobos.mma<warpsPerCTA = [3, 4]>>
phobos.kernel @mma_twelve_warps(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 384 : i32} {
  %a = phobos.load %A[%m, %m] : !phobos.tensor<?x?xf16> -> !phobos.tile<192x32xf16>
  %b = phobos.load %B[%m, %m] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x256xf16>
  %d = phobos.dot %a, %b kind(mma_sync) : !phobos.tile<192x32xf16>, !phobos.tile<32x256xf16> -> !phobos.tile<192x256xf32>
  phobos.store %d, %C[%m, %m] : !phobos.tile<192x256xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// When an mma.sync result is reduced along its rows (attention's softmax),
// every accumulator of the kernel keeps each row inside one warp (warps
// 4x1 here), so the row statistics need no exchange between warps; the
// other dot, whose result is not reduced, takes the same arrangement.
// CHECK-LABEL: phobos.kernel @rows_in_warp
// CHECK: phobos.dot {{.*}} kind(mma_sync) : {{.*}} -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
// CHECK: phobos.reduce max {{.*}} along 1 : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
// CHECK: phobos.dot {{.*}} kind(mma_sync) : {{.*}} -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
phobos.kernel @rows_in_warp(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m: i32)
    attributes {max_threads = 128 : i32} {
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %a = phobos.load %A[%m, %m] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
  %b = phobos.load %B[%m, %m] : !phobos.tensor<?x?xf16> -> !phobos.tile<16x64xf16>
  %s = phobos.dot %a, %b, %init kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
  %mx = phobos.reduce max %s along 1 : !phobos.tile<64x64xf32> -> !phobos.tile<64x1xf32>
  %o = phobos.dot %a, %b, %init kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
  phobos.store %mx, %C[%m, %m] : !phobos.tile<64x1xf32>, !phobos.tensor<?x?xf32>
  phobos.store %o, %C[%m, %m] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A small FMA result (N < 8) takes the default layout.
// CHECK-LABEL: phobos.kernel @small_fma
// CHECK: phobos.dot {{.*}} -> !phobos.tile<2x4xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
phobos.kernel @small_fma(%X: !phobos.tensor<?x?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %X[%m, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<2x8xf32>
  %b = phobos.load %X[%c0, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<8x4xf32>
  %d = phobos.dot %a, %b kind(fma) : !phobos.tile<2x8xf32>, !phobos.tile<8x4xf32> -> !phobos.tile<2x4xf32>
  phobos.store %d, %X[%m, %m] : !phobos.tile<2x4xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A rank-1 operand broadcasting against a rank-2 tile takes the slice of
// the tile's layout along axis 0, so the broadcast moves no data; its load
// is moved to that layout.
// CHECK-LABEL: phobos.kernel @bias
// CHECK: %[[X:.*]] = phobos.load %{{.*}} -> !phobos.tile<32x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: %[[W:.*]] = phobos.load %{{.*}} -> !phobos.tile<64xf32, #phobos.slice<dim = 0, parent = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>
// CHECK-NEXT: phobos.add %[[X]], %[[W]] : !phobos.tile<32x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>, !phobos.tile<64xf32, #phobos.slice<dim = 0, parent = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>
// CHECK-NOT: convert_layout
phobos.kernel @bias(%X: !phobos.tensor<?x?xf32>, %W: !phobos.tensor<?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%m, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x64xf32>
  %w = phobos.load %W[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
  %y = phobos.add %x, %w : !phobos.tile<32x64xf32>, !phobos.tile<64xf32>
  phobos.store %y, %X[%m, %c0] : !phobos.tile<32x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A reduction keeps its operand's layout ([32, 1] broadcasts back for free);
// a column mask built from arange takes the slice layout of the select it
// feeds (arange has no preference of its own).
// CHECK-LABEL: phobos.kernel @row_ops
// CHECK: %[[X:.*]] = phobos.load %{{.*}} -> !phobos.tile<32x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: phobos.reduce max %[[X]] along 1 : {{.*}} -> !phobos.tile<32x1xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: phobos.arange : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>
// CHECK: phobos.cmp lt, {{.*}} : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>, i32
// CHECK-NOT: convert_layout
phobos.kernel @row_ops(%X: !phobos.tensor<?x?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %inf = arith.constant -3.0e38 : f32
  %x = phobos.load %X[%m, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x64xf32>
  %r = phobos.reduce max %x along 1 : !phobos.tile<32x64xf32> -> !phobos.tile<32x1xf32>
  %y = phobos.sub %x, %r : !phobos.tile<32x64xf32>, !phobos.tile<32x1xf32>
  %cols = phobos.arange : !phobos.tile<64xi32>
  %n = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %mask = phobos.cmp lt, %cols, %n : !phobos.tile<64xi32>, i32
  %z = phobos.select %mask, %y, %inf : !phobos.tile<64xi1>, !phobos.tile<32x64xf32>, f32
  phobos.store %z, %X[%m, %c0] : !phobos.tile<32x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Adding the results of an mma.sync dot and an FMA dot: both are anchored
// in their own layouts, so one is converted (to the first operand's).
// CHECK-LABEL: phobos.kernel @two_dots
// CHECK: %[[D0:.*]] = phobos.dot {{.*}} kind(mma_sync) : {{.*}} -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NEXT: %[[D1:.*]] = phobos.dot {{.*}} kind(fma) : {{.*}} -> !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
// CHECK-NEXT: %[[CV:.*]] = phobos.convert_layout %[[D1]] : !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>> -> !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NEXT: phobos.add %[[D0]], %[[CV]] : !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>
phobos.kernel @two_dots(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
  %b = phobos.load %A[%c0, %m] : !phobos.tensor<?x?xf16> -> !phobos.tile<16x64xf16>
  %d0 = phobos.dot %a, %b kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<64x64xf32>
  %d1 = phobos.dot %a, %b kind(fma) : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<64x64xf32>
  %s = phobos.add %d0, %d1 : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
  phobos.store %s, %C[%m, %m] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A transpose's result takes the default layout; combined with the dot
// result it is converted to the dot's.
// CHECK-LABEL: phobos.kernel @transpose
// CHECK: %[[D:.*]] = phobos.dot {{.*}} -> !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
// CHECK-NEXT: %[[T:.*]] = phobos.transpose %[[D]] : !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>> -> !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: %[[CV:.*]] = phobos.convert_layout %[[T]] : {{.*}} -> !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
// CHECK-NEXT: phobos.add %[[D]], %[[CV]]
phobos.kernel @transpose(%A: !phobos.tensor<?x?xf32>, %C: !phobos.tensor<?x?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%m, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32>
  %b = phobos.load %A[%c0, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x64xf32>
  %d = phobos.dot %a, %b kind(fma) : !phobos.tile<64x32xf32>, !phobos.tile<32x64xf32> -> !phobos.tile<64x64xf32>
  %t = phobos.transpose %d : !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
  %s = phobos.add %d, %t : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
  phobos.store %s, %C[%m, %m] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A load with two users in different layouts cannot simply be moved: the
// dot reads it in its load layout, the add needs the accumulator layout.
// CHECK-LABEL: phobos.kernel @shared_producer
// CHECK: %[[X:.*]] = phobos.load %{{.*}} -> !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: %[[D:.*]] = phobos.dot %[[X]], %[[X]] kind(fma)
// CHECK-NEXT: %[[CV:.*]] = phobos.convert_layout %[[X]] : {{.*}} -> !phobos.tile<64x64xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>>
// CHECK-NEXT: phobos.add %[[D]], %[[CV]]
phobos.kernel @shared_producer(%X: !phobos.tensor<?x?xf32>, %A: !phobos.tensor<?x?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%m, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x64xf32>
  %d = phobos.dot %x, %x kind(fma) : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32> -> !phobos.tile<64x64xf32>
  %s = phobos.add %d, %x : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
  phobos.store %s, %A[%m, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// An index mask the scores need in the dot's layout (attention's causal
// `where(causal, cols <= rows, cols < N)`) is computed again in that
// layout rather than converted: `cols` has two users, so it is cloned (CSE
// merges the copies later); the 64x1 `rows`, a reshape of a row, is made in
// the slice of that layout, which the reshape only renames; no conversion
// is left and the chain in its first layouts is gone.
// CHECK-LABEL: phobos.kernel @mask_recomputed
// CHECK-NOT: convert_layout
// CHECK: %[[ROWSM:.*]] = phobos.reshape %{{.*}} : !phobos.tile<64xi32, #phobos.slice<dim = 1, parent = #phobos.mma<warpsPerCTA = [2, 2]>>> -> !phobos.tile<64x1xi32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK: scf.for
// CHECK-NOT: convert_layout
// CHECK: phobos.add %{{.*}} : i32, !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [2, 2]>>>
// CHECK-NOT: convert_layout
// CHECK: %[[LE:.*]] = phobos.cmp le, %{{.*}}, %[[ROWSM]] : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [2, 2]>>>, !phobos.tile<64x1xi32, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NEXT: %[[LT:.*]] = phobos.cmp lt, %{{.*}}, %{{.*}} : !phobos.tile<64xi32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [2, 2]>>>, i32
// CHECK-NEXT: %[[KEEP:.*]] = phobos.select %{{.*}}, %[[LE]], %[[LT]] : i1, !phobos.tile<64x64xi1, #phobos.mma<warpsPerCTA = [2, 2]>>
// CHECK-NOT: convert_layout
// CHECK: phobos.select %[[KEEP]], %{{.*}}, %{{.*}} : !phobos.tile<64x64xi1, #phobos.mma<warpsPerCTA = [2, 2]>>, !phobos.tile<64x64xf32, #phobos.mma<warpsPerCTA = [2, 2]>>, f32
// CHECK-NOT: #phobos.blocked<{{.*}}i1
// CHECK: scf.yield
phobos.kernel @mask_recomputed(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m: i32, %causal: i1)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %n = phobos.dim %B[1] : !phobos.tensor<?x?xf16>
  %floor = arith.constant -1.0e30 : f32
  %r0 = phobos.arange : !phobos.tile<64xi32>
  %r1 = phobos.add %m, %r0 : i32, !phobos.tile<64xi32>
  %rows = phobos.reshape %r1 : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
  %a = phobos.load %A[%m, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %floor : !phobos.tile<64x64xf32>
  %r = scf.for %k0 = %c0 to %n step %c64 iter_args(%best = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %b = phobos.load %B[%c0, %k0] : !phobos.tensor<?x?xf16> -> !phobos.tile<16x64xf16>
    %s = phobos.dot %a, %b kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<64x64xf32>
    %ar = phobos.arange : !phobos.tile<64xi32>
    %cols = phobos.add %k0, %ar : i32, !phobos.tile<64xi32>
    %le = phobos.cmp le, %cols, %rows : !phobos.tile<64xi32>, !phobos.tile<64x1xi32>
    %lt = phobos.cmp lt, %cols, %n : !phobos.tile<64xi32>, i32
    %keep = phobos.select %causal, %le, %lt : i1, !phobos.tile<64x64xi1>, !phobos.tile<64xi1>
    %masked = phobos.select %keep, %s, %floor : !phobos.tile<64x64xi1>, !phobos.tile<64x64xf32>, f32
    %next = phobos.max %best, %masked : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
    scf.yield %next : !phobos.tile<64x64xf32>
  }
  phobos.store %r, %C[%m, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A row the scores need broadcast along their rows (attention backward's
// `reshape(lse[b, r0 :+ BR], 1, BR)`) is loaded in the slice of the dot's
// layout, so that the reshape only renames registers; no conversion is
// left in the loop.
// CHECK-LABEL: phobos.kernel @row_loaded_in_slice
// CHECK: scf.for
// CHECK-NOT: convert_layout
// CHECK: %[[ROW:.*]] = phobos.load %{{.*}} -> !phobos.tile<64xf32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: phobos.reshape %[[ROW]] : !phobos.tile<64xf32, #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>> -> !phobos.tile<1x64xf32, #phobos.mma<warpsPerCTA = [4, 1]>>
// CHECK-NOT: convert_layout
// CHECK: scf.yield
phobos.kernel @row_loaded_in_slice(%A: !phobos.tensor<?x?xf16>, %L: !phobos.tensor<?xf32>, %C: !phobos.tensor<?x?xf32>, %n: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %r = scf.for %k0 = %c0 to %n step %c64 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %b = phobos.load %A[%k0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<64x64xf32>
    %l = phobos.load %L[%k0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
    %row = phobos.reshape %l : !phobos.tile<64xf32> -> !phobos.tile<1x64xf32>
    %p = phobos.sub %s, %row : !phobos.tile<64x64xf32>, !phobos.tile<1x64xf32>
    %next = phobos.add %acc, %p : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
    scf.yield %next : !phobos.tile<64x64xf32>
  }
  phobos.store %r, %C[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A loop-invariant tile that the loop needs in another layout (a 64x1 mask
// made before the loop from a reshape) is converted once, after its
// definition, not in every iteration; its two users share the conversion.
// CHECK-LABEL: phobos.kernel @invariant_converted_once
// CHECK: %[[MASK:.*]] = phobos.cmp lt
// CHECK-NEXT: %[[CONVERTED:.*]] = phobos.convert_layout %[[MASK]] : {{.*}} -> !phobos.tile<64x1xi1, #phobos.mma<warpsPerCTA = [4, 1]>>
// CHECK-NOT: convert_layout
// CHECK: scf.for
// CHECK-NOT: convert_layout
// CHECK: phobos.select %[[CONVERTED]]
// CHECK-NOT: convert_layout
// CHECK: phobos.select %[[CONVERTED]]
// CHECK-NOT: convert_layout
// CHECK: scf.yield
phobos.kernel @invariant_converted_once(%A: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %m: i32, %n: i32)
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %r0 = phobos.arange : !phobos.tile<64xi32>
  %r1 = phobos.add %m, %r0 : i32, !phobos.tile<64xi32>
  %rows = phobos.reshape %r1 : !phobos.tile<64xi32> -> !phobos.tile<64x1xi32>
  %mask = phobos.cmp lt, %rows, %n : !phobos.tile<64x1xi32>, i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
  %init = phobos.fill %zero : !phobos.tile<64x64xf32>
  %r = scf.for %k0 = %c0 to %n step %c64 iter_args(%acc = %init) -> (!phobos.tile<64x64xf32>) : i32 {
    %b = phobos.load %A[%k0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x64xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x64xf16>, !phobos.tile<64x64xf16> -> !phobos.tile<64x64xf32>
    %p = phobos.select %mask, %s, %zero : !phobos.tile<64x1xi1>, !phobos.tile<64x64xf32>, f32
    %q = phobos.select %mask, %acc, %zero : !phobos.tile<64x1xi1>, !phobos.tile<64x64xf32>, f32
    %next = phobos.add %p, %q : !phobos.tile<64x64xf32>, !phobos.tile<64x64xf32>
    scf.yield %next : !phobos.tile<64x64xf32>
  }
  phobos.store %r, %C[%c0, %c0] : !phobos.tile<64x64xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// The ops of a warp_specialize's consumer get layouts like the kernel's own
// (the pass may run after the split): the bias row takes the slice of its
// tile's layout.
// CHECK-LABEL: phobos.kernel @split_roles
// CHECK: phobos.warp_specialize producer(40) {
// CHECK: } consumer(232) {
// CHECK: %[[X:.*]] = phobos.load %{{.*}} -> !phobos.tile<32x64xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: %[[W:.*]] = phobos.load %{{.*}} -> !phobos.tile<64xf32, #phobos.slice<dim = 0, parent = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>
// CHECK-NEXT: phobos.add %[[X]], %[[W]]
phobos.kernel @split_roles(%X: !phobos.tensor<?x?xf32>, %W: !phobos.tensor<?xf32>, %m: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    %x = phobos.load %X[%m, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x64xf32>
    %w = phobos.load %W[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
    %y = phobos.add %x, %w : !phobos.tile<32x64xf32>, !phobos.tile<64xf32>
    phobos.store %y, %X[%m, %c0] : !phobos.tile<32x64xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}
