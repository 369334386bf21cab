// RUN: phobos-opt %s --convert-tile-to-gpu="vector-atomics=true" --split-input-file | FileCheck %s

// With vector-atomics (sm_90 and later), a thread's consecutive f32
// elements along the tensor's contiguous axis are one vector reduction,
// red.global.add.v2/v4.f32, where the run is inside and aligned (a masked
// run whose elements are all inside or all outside together: one vector
// under its first element's flag), and element by element otherwise.

#l = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// CHECK-LABEL: gpu.func @add_row
// The uniform run (aligned, extents and strides multiples of 4): one v4
// reduction under the first element's flag.
// CHECK: scf.if %{{.*}} {
// CHECK: scf.if %{{.*}} {
// CHECK: llvm.inline_asm has_side_effects "red.relaxed.gpu.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f,~{memory}" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i64, f32, f32, f32, f32) -> ()
// CHECK: } else {
// Otherwise the whole run inside and aligned: one v4 reduction ...
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %{{.*}} = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK-NEXT: llvm.inline_asm has_side_effects "red.relaxed.gpu.global.add.v4.f32
// CHECK: } else {
// ... else four scalar additions, each under its own flag.
// CHECK-COUNT-4: llvm.atomicrmw fadd
// The tile's 128 elements on 32 lanes are one run of 4 a thread.
// CHECK-NOT: llvm.inline_asm
// CHECK-NOT: llvm.atomicrmw
// CHECK: gpu.return
phobos.kernel @add_row(%DW: !phobos.tensor<?x?xf32> {phobos.dims = ["G", "N"]}, %x: f32, %i: i32)
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %t = phobos.fill %x : !phobos.tile<128xf32, #l>
  phobos.atomic_add %t, %DW[%i, %c0] {point_axes = array<i64: 0>} : !phobos.tile<128xf32, #l>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// Two consecutive f32 a thread, in bounds by construction: one v2
// reduction when aligned, two scalar ones otherwise.
// CHECK-LABEL: gpu.func @pairs
// CHECK-NOT: atomicrmw
// CHECK: llvm.inline_asm has_side_effects "red.relaxed.gpu.global.add.v2.f32 [$0], {$1, $2};", "l,f,f,~{memory}"
// CHECK: } else {
// CHECK-COUNT-2: llvm.atomicrmw fadd
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
phobos.kernel @pairs(%A: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %x: f32, %o: i32)
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %t = phobos.fill %x : !phobos.tile<64xf32, #l>
  phobos.atomic_add %t, %A[%o] {in_bounds = array<i1: true>} : !phobos.tile<64xf32, #l>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// i32 has no vector reduction: one atomic per element still.
// CHECK-LABEL: gpu.func @counts
// CHECK-NOT: llvm.inline_asm
// CHECK-COUNT-4: llvm.atomicrmw add
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
phobos.kernel @counts(%C: !phobos.tensor<?xi32> {phobos.dims = ["N"]}, %o: i32)
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %one = arith.constant 1 : i32
  %t = phobos.fill %one : !phobos.tile<128xi32, #l>
  phobos.atomic_add %t, %C[%o] : !phobos.tile<128xi32, #l>, !phobos.tensor<?xi32>
  phobos.return
}
