// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' --split-input-file | FileCheck %s

// Shared memory: one dynamic array, @phobos_smem, addressed at each
// buffer's offset (and at the scratch offset for the ops that move data
// between threads). The barriers between ops are tile-insert-barriers'
// (test/Transforms/tile-insert-barriers.mlir); an op that exchanges data
// through scratch has its own between its writes and its reads.

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>
#r = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [1, 0]>

// A local_alloc writes each thread's registers at their place in the buffer
// (rows of 64 + 4 padding f32 here), one 16-byte store per four elements
// contiguous along the buffer's fastest axis; a local_load reads the buffer
// back in another layout after a barrier.
// CHECK-LABEL: gpu.func @alloc_load
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @phobos_smem : !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[BUF:.*]] = llvm.getelementptr %[[SMEM]][64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[C68:.*]] = arith.constant 68 : i32
// CHECK: arith.muli %{{.*}}, %[[C68]] : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %[[BUF]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %{{.*}}, %[[P]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.getelementptr %[[BUF]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.return
phobos.kernel @alloc_load(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 1152 : i64, phobos.shared_bytes = 1152 : i64} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<4x64xf32, #l>
  %s = phobos.local_alloc %x {offset = 64 : i64} : !phobos.tile<4x64xf32, #l> -> !phobos.smem<4x64xf32, #phobos.shared<order = [1, 0], padding = 4>>
  %y = phobos.local_load %s : !phobos.smem<4x64xf32, #phobos.shared<order = [1, 0], padding = 4>> -> !phobos.tile<4x64xf32, #r>
  phobos.store %y, %X[%c0, %c0] : !phobos.tile<4x64xf32, #r>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>
#r = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [1, 0]>

// A layout conversion goes through the scratch region: the source's
// registers are written at their row-major positions, then read back as
// the result's layout needs them.
// CHECK-LABEL: gpu.func @convert
// CHECK-SAME: phobos.shared_bytes = 1024 : i64
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @phobos_smem : !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[W:.*]] = llvm.getelementptr %[[SMEM]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.return
phobos.kernel @convert(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 1024 : i64} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<4x64xf32, #l>
  %y = phobos.convert_layout %x : !phobos.tile<4x64xf32, #l> -> !phobos.tile<4x64xf32, #r>
  phobos.store %y, %X[%c0, %c0] : !phobos.tile<4x64xf32, #r>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>

// Reductions: registers within the thread first, then lanes with butterfly
// shuffles (16 lanes along a row: masks 1, 2, 4, 8), then, where warps
// share the axis, partials through the scratch region. Along the columns,
// lanes 16 apart hold the other row and the two warps the other rows.
// CHECK-LABEL: gpu.func @reductions
// CHECK: %[[S1:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %{{.*}} : f32
// CHECK-NEXT: %[[S3:.*]] = arith.addf %[[S2]], %{{.*}} : f32
// CHECK: %[[X1:.*]] = nvvm.shfl.sync bfly %{{.*}}, %[[S3]], %[[M1:.*]], %{{.*}} : f32 -> f32
// CHECK-NEXT: %[[S4:.*]] = arith.addf %[[S3]], %[[X1]] : f32
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %[[S4]], %{{.*}}, %{{.*}} : f32 -> f32
// CHECK: nvvm.shfl.sync bfly
// CHECK: %[[X8:.*]] = nvvm.shfl.sync bfly
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %[[X8]] : f32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %[[SUM]]
// The column maximum.
// CHECK: %[[Y:.*]] = nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M16:.*]], %{{.*}} : f32 -> f32
// CHECK-NEXT: arith.maximumf %{{.*}}, %[[Y]] : f32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[P0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[MAX0:.*]] = arith.maximumf %{{.*}}, %[[P0]] : f32
// CHECK: %[[P1:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: arith.maximumf %[[MAX0]], %[[P1]] : f32
// CHECK: gpu.return
phobos.kernel @reductions(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                          %S: !phobos.tensor<?x1xf32> {phobos.dims = ["M", "1"]},
                          %C: !phobos.tensor<1x?xf32> {phobos.dims = ["1", "N"]})
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 512 : i64} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<4x64xf32, #l>
  %r = phobos.reduce sum %x along 1 : !phobos.tile<4x64xf32, #l> -> !phobos.tile<4x1xf32, #l>
  phobos.store %r, %S[%c0, %c0] {in_bounds = array<i1: false, true>} : !phobos.tile<4x1xf32, #l>, !phobos.tensor<?x1xf32>
  %m = phobos.reduce max %x along 0 : !phobos.tile<4x64xf32, #l> -> !phobos.tile<1x64xf32, #l>
  phobos.store %m, %C[%c0, %c0] {in_bounds = array<i1: true, false>} : !phobos.tile<1x64xf32, #l>, !phobos.tensor<1x?xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>

// A write waits for a barrier only after reads (write-after-read): the
// second buffer is written right after the first, and one barrier
// separates both writes from the reads. In a loop, the first write of an
// iteration waits for the previous iteration's reads.
// CHECK-LABEL: gpu.func @barriers
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @phobos_smem : !llvm.ptr<3>
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: llvm.getelementptr %[[SMEM]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.getelementptr %[[SMEM]][1088] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: nvvm.barrier0
// CHECK: scf.yield
phobos.kernel @barriers(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %n: i32)
    attributes {max_threads = 64 : i32, phobos.scratch_offset = 2176 : i64, phobos.shared_bytes = 2176 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<4x64xf32, #l>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (!phobos.tile<4x64xf32, #l>) : i32 {
    %a = phobos.local_alloc %acc {offset = 0 : i64} : !phobos.tile<4x64xf32, #l> -> !phobos.smem<4x64xf32, #phobos.shared<order = [1, 0], padding = 4>>
    %b = phobos.local_alloc %x {offset = 1088 : i64} : !phobos.tile<4x64xf32, #l> -> !phobos.smem<4x64xf32, #phobos.shared<order = [1, 0], padding = 4>>
    %y = phobos.local_load %a : !phobos.smem<4x64xf32, #phobos.shared<order = [1, 0], padding = 4>> -> !phobos.tile<4x64xf32, #l>
    %z = phobos.local_load %b : !phobos.smem<4x64xf32, #phobos.shared<order = [1, 0], padding = 4>> -> !phobos.tile<4x64xf32, #l>
    %s = phobos.add %y, %z : !phobos.tile<4x64xf32, #l>, !phobos.tile<4x64xf32, #l>
    scf.yield %s : !phobos.tile<4x64xf32, #l>
  }
  phobos.store %r, %X[%c0, %c0] : !phobos.tile<4x64xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#m = #phobos.mma<warpsPerCTA = [4, 1]>
#row = #phobos.slice<dim = 0, parent = #phobos.mma<warpsPerCTA = [4, 1]>>
#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#t = #phobos.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>

// Where every thread already holds what the result needs, a reshape, a
// transpose or a conversion renames registers: no scratch, no barrier
// (getRegisterPermutation). A row in the slice of the mma layout made
// [1, 64] in that layout (attention backward's log-sum-exp), and a
// transpose whose result layout is the source's with its axes swapped. The
// loaded values reach the stores unchanged: the first store's vector
// holds the loaded row's two elements of each n-tile.
// CHECK-LABEL: gpu.func @renamed
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: llvm.store {{.*}}!llvm.ptr<3>
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3>
// CHECK: gpu.return
phobos.kernel @renamed(%X: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %Y: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32, #row>
  %r = phobos.reshape %x : !phobos.tile<64xf32, #row> -> !phobos.tile<1x64xf32, #m>
  phobos.store %r, %Y[%c0, %c0] : !phobos.tile<1x64xf32, #m>, !phobos.tensor<?x?xf32>
  %y = phobos.load %Y[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<8x64xf32, #l>
  %z = phobos.transpose %y : !phobos.tile<8x64xf32, #l> -> !phobos.tile<64x8xf32, #t>
  phobos.store %z, %Y[%c0, %c0] : !phobos.tile<64x8xf32, #t>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#m = #phobos.mma<warpsPerCTA = [4, 1]>
#l = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// Not a renaming: the same reshape from a blocked row needs elements of
// other threads, through scratch with its barrier.
// CHECK-LABEL: gpu.func @exchanged
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.return
phobos.kernel @exchanged(%X: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %Y: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 128 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 256 : i64} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
  %r = phobos.reshape %x : !phobos.tile<64xf32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> !phobos.tile<1x64xf32, #m>
  phobos.store %r, %Y[%c0, %c0] : !phobos.tile<1x64xf32, #m>, !phobos.tensor<?x?xf32>
  phobos.return
}
