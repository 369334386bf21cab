// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu{fma-k-unroll=6})' | FileCheck %s --check-prefix=ROLLED
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu{fma-k-unroll=16})' | FileCheck %s --check-prefix=WHOLE
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s --check-prefix=WHOLE
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu{fma-k-unroll=-2})' 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// An FMA dot over K = 16 with fma-k-unroll=6: a loop of 16 / 6 = 2
// iterations of 6 steps each (k = 6 * i + j), marked "do not unroll", its
// accumulators carried; the 4 steps left over follow it, unrolled.
// ROLLED: #[[$UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// ROLLED: #[[$NOUNROLL:.*]] = #llvm.loop_annotation<unroll = #[[$UNROLL]]>
// ROLLED-LABEL: gpu.func @fma_k16
// ROLLED-NOT: llvm.intr.fma
// (Constants print as %c<value>_i32<suffix>.)
// ROLLED: %[[SUM:.*]] = scf.for %[[I:[^ ]*]] = %c0_i32{{[_0-9]*}} to %c2_i32{{[_0-9]*}} step %c1_i32{{[_0-9]*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) : i32 {
// ROLLED-NEXT: %[[C6:.*]] = arith.constant 6 : i32
// ROLLED-NEXT: %[[K0:.*]] = arith.muli %[[I]], %[[C6]] overflow<nsw> : i32
// ROLLED: %[[S0:.*]] = llvm.intr.fma(%{{.*}}, %{{.*}}, %[[ACC]])
// ROLLED: arith.addi %[[K0]], %{{.*}} overflow<nsw> : i32
// ROLLED-COUNT-5: llvm.intr.fma
// ROLLED-NOT: llvm.intr.fma
// ROLLED: scf.yield %{{.*}} : f32
// ROLLED-NEXT: } {llvm.loop_annotation = #[[$NOUNROLL]]}
// ROLLED: llvm.intr.fma(%{{.*}}, %{{.*}}, %[[SUM]])
// ROLLED-COUNT-3: llvm.intr.fma
// ROLLED-NOT: llvm.intr.fma
// ROLLED: llvm.inline_asm has_side_effects "", "f"

// Without the option, or with a step count not below K, the 16 steps are
// unrolled whole.
// WHOLE-LABEL: gpu.func @fma_k16
// WHOLE-NOT: scf.for
// WHOLE-COUNT-16: llvm.intr.fma
// WHOLE-NOT: llvm.intr.fma
// WHOLE-NOT: scf.for
// WHOLE: llvm.inline_asm has_side_effects "", "f"

// NEGATIVE: error: convert-tile-to-gpu: fma-k-unroll must be 0 (unroll the whole K slice) or a positive step count, not -2

#a = #phobos.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#acc = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
phobos.kernel @fma_k16(%x: f32, %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 1024 : i64, phobos.shared_bytes = 1024 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<4x16xf32, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<4x16xf32, #a> -> !phobos.smem<4x16xf32, #phobos.shared<order = [0, 1], padding = 4>>
  %b = phobos.fill %x : !phobos.tile<16x8xf32, #b>
  %sb = phobos.local_alloc %b {offset = 512 : i64} : !phobos.tile<16x8xf32, #b> -> !phobos.smem<16x8xf32, #phobos.shared<order = [1, 0], padding = 4>>
  %d = phobos.dot %sa, %sb kind(fma) : !phobos.smem<4x16xf32, #phobos.shared<order = [0, 1], padding = 4>>, !phobos.smem<16x8xf32, #phobos.shared<order = [1, 0], padding = 4>> -> !phobos.tile<4x8xf32, #acc>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<4x8xf32, #acc>, !phobos.tensor<?x?xf32>
  phobos.return
}
