// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' --split-input-file | FileCheck %s

// Dots read their operands from shared memory. FMA: each thread
// accumulates its micro-tile with one llvm.intr.fma per element and k,
// then pins the results in place with an empty asm volatile.
// mma.sync: each warp loads its m16n8k16 (k8 for tf32) fragments and
// issues one nvvm.mma.sync per fragment pair.

#a = #phobos.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]>
#acc = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>

// [4, 2] x [2, 8] on one warp: each lane holds one element of C and runs
// two FMAs, reading A (stored M-contiguous at offset 0) and B (stored
// N-contiguous at offset 64) after a barrier that follows the last write;
// the accumulator starts at zero.
// CHECK-LABEL: gpu.func @fma
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @phobos_smem : !llvm.ptr<3>
// CHECK-NOT: llvm.intr.fma
// CHECK: %[[BA:.*]] = llvm.getelementptr %[[SMEM]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[BB:.*]] = llvm.getelementptr %[[SMEM]][64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.getelementptr %[[BA]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: %[[A0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.getelementptr %[[BB]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: %[[B0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[C0:.*]] = llvm.intr.fma(%[[A0]], %[[B0]], %[[ZERO:.*]]) : (f32, f32, f32) -> f32
// CHECK: %[[A1:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[B1:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[C1:.*]] = llvm.intr.fma(%[[A1]], %[[B1]], %[[C0]]) : (f32, f32, f32) -> f32
// The results are used where they are made (an empty asm volatile), so
// LLVM cannot sink the FMAs away from their loads.
// CHECK-NEXT: llvm.inline_asm has_side_effects "", "f" %[[C1]] : (f32) -> ()
// CHECK-NOT: llvm.intr.fma
// CHECK: llvm.store %[[C1]], %{{.*}} : f32, !llvm.ptr<1>
phobos.kernel @fma(%x: f32, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 160 : i64, phobos.shared_bytes = 160 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<4x2xf32, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<4x2xf32, #a> -> !phobos.smem<4x2xf32, #phobos.shared<order = [0, 1], padding = 4>>
  %b = phobos.fill %x : !phobos.tile<2x8xf32, #b>
  %sb = phobos.local_alloc %b {offset = 64 : i64} : !phobos.tile<2x8xf32, #b> -> !phobos.smem<2x8xf32, #phobos.shared<order = [1, 0], padding = 4>>
  %d = phobos.dot %sa, %sb kind(fma) : !phobos.smem<4x2xf32, #phobos.shared<order = [0, 1], padding = 4>>, !phobos.smem<2x8xf32, #phobos.shared<order = [1, 0], padding = 4>> -> !phobos.tile<4x8xf32, #acc>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<4x8xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#a = #phobos.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]>
#acc = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>

// An FMA dot with precision(tf32) rounds each operand as it is read; an
// accumulator operand seeds the FMAs.
// CHECK-LABEL: gpu.func @fma_tf32
// CHECK-SAME: (%[[X:[^:]*]]: f32
// CHECK: %[[A0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[RA:.*]] = nvvm.convert.float.to.tf32 %[[A0]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-NEXT: %[[RAF:.*]] = arith.bitcast %[[RA]] : i32 to f32
// CHECK: %[[B0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[RB:.*]] = nvvm.convert.float.to.tf32 %[[B0]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-NEXT: %[[RBF:.*]] = arith.bitcast %[[RB]] : i32 to f32
// CHECK: llvm.intr.fma(%[[RAF]], %[[RBF]], %[[X]]) : (f32, f32, f32) -> f32
phobos.kernel @fma_tf32(%x: f32, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 160 : i64, phobos.shared_bytes = 160 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<4x2xf32, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<4x2xf32, #a> -> !phobos.smem<4x2xf32, #phobos.shared<order = [0, 1], padding = 4>>
  %b = phobos.fill %x : !phobos.tile<2x8xf32, #b>
  %sb = phobos.local_alloc %b {offset = 64 : i64} : !phobos.tile<2x8xf32, #b> -> !phobos.smem<2x8xf32, #phobos.shared<order = [1, 0], padding = 4>>
  %acc = phobos.fill %x : !phobos.tile<4x8xf32, #acc>
  %d = phobos.dot %sa, %sb, %acc precision(tf32) kind(fma) : !phobos.smem<4x2xf32, #phobos.shared<order = [0, 1], padding = 4>>, !phobos.smem<2x8xf32, #phobos.shared<order = [1, 0], padding = 4>>, !phobos.tile<4x8xf32, #acc> -> !phobos.tile<4x8xf32, #acc>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<4x8xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#a = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// [16, 16] x [16, 8] in f16 on one warp: one m16n8k16 mma.sync. The A
// fragment (four pairs of halves) comes from one ldmatrix.x4, the B
// fragment (two pairs) from one ldmatrix.x2; B is stored K-contiguous, so
// neither needs .trans. The accumulator is four f32.
// CHECK-LABEL: gpu.func @mma_f16
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK-NOT: llvm.load
// CHECK: %[[D:.*]] = nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[D]]
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
phobos.kernel @mma_f16(%h: f16, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 1152 : i64, phobos.shared_bytes = 1152 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<16x16xf16, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<16x16xf16, #a> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %b = phobos.fill %h : !phobos.tile<16x8xf16, #a>
  %sb = phobos.local_alloc %b {offset = 768 : i64} : !phobos.tile<16x8xf16, #a> -> !phobos.smem<16x8xf16, #phobos.shared<order = [0, 1], padding = 8>>
  %d = phobos.dot %sa, %sb kind(mma_sync) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x8xf16, #phobos.shared<order = [0, 1], padding = 8>> -> !phobos.tile<16x8xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<16x8xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#a = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// tf32: m16n8k8; K = 16 takes two steps. With both buffers K-contiguous
// the fragments come from ldmatrix as for f16 (an 8x8 b16 matrix is 8 rows
// of 4 f32; each lane's 32-bit word is its fragment element), then each
// f32 is rounded to tf32. bf16 operands pass as i32 pairs.
// CHECK-LABEL: gpu.func @mma_tf32
// CHECK: %[[AM:.*]] = nvvm.ldmatrix %{{.*}} num = 4 : i32
// CHECK: %[[AW:.*]] = llvm.extractvalue %[[AM]][0]
// CHECK: %[[AF:.*]] = llvm.bitcast %[[AW]] : i32 to f32
// CHECK: nvvm.convert.float.to.tf32 %[[AF]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: nvvm.ldmatrix %{{.*}} num = 2 : i32
// CHECK-NOT: llvm.load
// CHECK: %[[D0:.*]] = nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// CHECK: %[[C0:.*]] = llvm.extractvalue %[[D0]][0]
// CHECK: nvvm.mma.sync {{.*}} C[%[[C0]], {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 8>
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
phobos.kernel @mma_tf32(%x: f32, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 2048 : i64, phobos.shared_bytes = 2048 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<16x16xf32, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<16x16xf32, #a> -> !phobos.smem<16x16xf32, #phobos.shared<order = [1, 0], padding = 4>>
  %b = phobos.fill %x : !phobos.tile<16x8xf32, #a>
  %sb = phobos.local_alloc %b {offset = 1280 : i64} : !phobos.tile<16x8xf32, #a> -> !phobos.smem<16x8xf32, #phobos.shared<order = [0, 1], padding = 4>>
  %d = phobos.dot %sa, %sb precision(tf32) kind(mma_sync) : !phobos.smem<16x16xf32, #phobos.shared<order = [1, 0], padding = 4>>, !phobos.smem<16x8xf32, #phobos.shared<order = [0, 1], padding = 4>> -> !phobos.tile<16x8xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<16x8xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// CHECK-LABEL: gpu.func @mma_bf16
// CHECK: nvvm.ldmatrix %{{.*}} num = 4 : i32
// CHECK: nvvm.ldmatrix %{{.*}} num = 2 : i32
// CHECK: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32)
phobos.kernel @mma_bf16(%h: bf16, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 1152 : i64, phobos.shared_bytes = 1152 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<16x16xbf16, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<16x16xbf16, #a> -> !phobos.smem<16x16xbf16, #phobos.shared<order = [1, 0], padding = 8>>
  %b = phobos.fill %h : !phobos.tile<16x8xbf16, #a>
  %sb = phobos.local_alloc %b {offset = 768 : i64} : !phobos.tile<16x8xbf16, #a> -> !phobos.smem<16x8xbf16, #phobos.shared<order = [0, 1], padding = 8>>
  %d = phobos.dot %sa, %sb kind(mma_sync) : !phobos.smem<16x16xbf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x8xbf16, #phobos.shared<order = [0, 1], padding = 8>> -> !phobos.tile<16x8xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<16x8xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#a = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// B stored N-contiguous ([K, N] row-major, as PromoteShared lays out an
// untransposed 16-bit operand): its fragment comes from ldmatrix.trans.
// CHECK-LABEL: gpu.func @mma_f16_b_rowmajor
// CHECK: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 2 : i32
// CHECK: nvvm.mma.sync
phobos.kernel @mma_f16_b_rowmajor(%h: f16, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 1280 : i64, phobos.shared_bytes = 1280 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<16x16xf16, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<16x16xf16, #a> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %b = phobos.fill %h : !phobos.tile<16x8xf16, #a>
  %sb = phobos.local_alloc %b {offset = 768 : i64} : !phobos.tile<16x8xf16, #a> -> !phobos.smem<16x8xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %d = phobos.dot %sa, %sb kind(mma_sync) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x8xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x8xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<16x8xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#a = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// A stored M-contiguous (order [0, 1]): its fragment comes from
// ldmatrix.trans too.
// CHECK-LABEL: gpu.func @mma_f16_a_colmajor
// CHECK: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 2 : i32
// CHECK: nvvm.mma.sync
phobos.kernel @mma_f16_a_colmajor(%h: f16, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 1152 : i64, phobos.shared_bytes = 1152 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<16x16xf16, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<16x16xf16, #a> -> !phobos.smem<16x16xf16, #phobos.shared<order = [0, 1], padding = 8>>
  %b = phobos.fill %h : !phobos.tile<16x8xf16, #a>
  %sb = phobos.local_alloc %b {offset = 768 : i64} : !phobos.tile<16x8xf16, #a> -> !phobos.smem<16x8xf16, #phobos.shared<order = [0, 1], padding = 8>>
  %d = phobos.dot %sa, %sb kind(mma_sync) : !phobos.smem<16x16xf16, #phobos.shared<order = [0, 1], padding = 8>>, !phobos.smem<16x8xf16, #phobos.shared<order = [0, 1], padding = 8>> -> !phobos.tile<16x8xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<16x8xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// In a kernel with a product on the FMA units (an SGEMM keeps its
// accumulators in registers) a masked vector loads unconditionally: its
// address moves to the tensor's first element and the values are replaced
// by zeros, where a predicated load kept more registers live.

#a = #phobos.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]>
#acc = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @fma_kernel_load
// CHECK-SAME: (%[[X:[^:]*]]: !llvm.ptr<1>,
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[X]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[SP:.*]] = arith.select %{{.*}}, %[[P]], %[[X]] : !llvm.ptr<1>
// CHECK-NEXT: llvm.load %[[SP]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.intr.fma
phobos.kernel @fma_kernel_load(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                               %Y: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                               %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 160 : i64, phobos.shared_bytes = 160 : i64} {
  %c0 = arith.constant 0 : i32
  %v = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<2x64xf32, #b>
  phobos.store %v, %Y[%c0, %c0] : !phobos.tile<2x64xf32, #b>, !phobos.tensor<?x?xf32>
  %x = arith.constant 1.0 : f32
  %a = phobos.fill %x : !phobos.tile<4x2xf32, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<4x2xf32, #a> -> !phobos.smem<4x2xf32, #phobos.shared<order = [0, 1], padding = 4>>
  %b = phobos.fill %x : !phobos.tile<2x8xf32, #b>
  %sb = phobos.local_alloc %b {offset = 64 : i64} : !phobos.tile<2x8xf32, #b> -> !phobos.smem<2x8xf32, #phobos.shared<order = [1, 0], padding = 4>>
  %d = phobos.dot %sa, %sb kind(fma) : !phobos.smem<4x2xf32, #phobos.shared<order = [0, 1], padding = 4>>, !phobos.smem<2x8xf32, #phobos.shared<order = [1, 0], padding = 4>> -> !phobos.tile<4x8xf32, #acc>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<4x8xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}
