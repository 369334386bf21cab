// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-allocate-shared))' --split-input-file -verify-diagnostics | FileCheck %s

// Every local_alloc gets a 16-byte aligned offset; buffers whose live
// ranges (write to last reader; a whole loop when written outside it and
// read inside) do not overlap share space, first fit. One scratch region
// follows the buffers, as large as the largest op that needs one. The
// kernel records phobos.scratch_offset and phobos.shared_bytes.

// Buffers live at the same time get distinct offsets, each rounded up to 16
// bytes: 3x5 f16 is 30 bytes, 32 with the alignment.
// CHECK-LABEL: phobos.kernel @aligned
// CHECK-SAME: phobos.scratch_offset = 96 : i64, phobos.shared_bytes = 96 : i64
// CHECK: phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 32 : i64}
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 64 : i64}
phobos.kernel @aligned(%h: f16) {
  %t = phobos.fill %h : !phobos.tile<3x5xf16>
  %a = phobos.local_alloc %t : !phobos.tile<3x5xf16> -> !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %b = phobos.local_alloc %t : !phobos.tile<3x5xf16> -> !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %c = phobos.local_alloc %t : !phobos.tile<3x5xf16> -> !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %x = phobos.local_load %a : !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<3x5xf16>
  %y = phobos.local_load %b : !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<3x5xf16>
  %z = phobos.local_load %c : !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<3x5xf16>
  phobos.return
}

// -----

// A buffer written after the last reader of another takes its space. The
// padding counts: 16 rows of (16 + 8) f16 are 768 bytes.
// CHECK-LABEL: phobos.kernel @disjoint
// CHECK-SAME: phobos.scratch_offset = 768 : i64, phobos.shared_bytes = 768 : i64
// CHECK: phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK-NEXT: phobos.local_load
// CHECK-NEXT: phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK-NEXT: phobos.local_load
phobos.kernel @disjoint(%h: f16) {
  %t = phobos.fill %h : !phobos.tile<16x16xf16>
  %a = phobos.local_alloc %t : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %x = phobos.local_load %a : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf16>
  %b = phobos.local_alloc %x : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %y = phobos.local_load %b : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf16>
  phobos.return
}

// -----

// First fit: %b dies early, %c fits in the gap it leaves between %a and the
// end, and %d, live with %a and %c, goes after both.
// CHECK-LABEL: phobos.kernel @first_fit
// CHECK-SAME: phobos.shared_bytes = 192 : i64
// CHECK: %[[A:.*]] = phobos.local_alloc %{{.*}} {offset = 0 : i64} : {{.*}} -> !phobos.smem<4x4xf16
// CHECK-NEXT: %[[B:.*]] = phobos.local_alloc %{{.*}} {offset = 32 : i64} : {{.*}} -> !phobos.smem<8x4xf16
// CHECK-NEXT: phobos.local_load %[[B]]
// CHECK-NEXT: %[[C:.*]] = phobos.local_alloc %{{.*}} {offset = 32 : i64} : {{.*}} -> !phobos.smem<4x4xf16
// CHECK-NEXT: %[[D:.*]] = phobos.local_alloc %{{.*}} {offset = 64 : i64} : {{.*}} -> !phobos.smem<16x4xf16
phobos.kernel @first_fit(%h: f16) {
  %t4 = phobos.fill %h : !phobos.tile<4x4xf16>
  %t8 = phobos.fill %h : !phobos.tile<8x4xf16>
  %t16 = phobos.fill %h : !phobos.tile<16x4xf16>
  %a = phobos.local_alloc %t4 : !phobos.tile<4x4xf16> -> !phobos.smem<4x4xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %b = phobos.local_alloc %t8 : !phobos.tile<8x4xf16> -> !phobos.smem<8x4xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %xb = phobos.local_load %b : !phobos.smem<8x4xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<8x4xf16>
  %c = phobos.local_alloc %t4 : !phobos.tile<4x4xf16> -> !phobos.smem<4x4xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %d = phobos.local_alloc %t16 : !phobos.tile<16x4xf16> -> !phobos.smem<16x4xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %xa = phobos.local_load %a : !phobos.smem<4x4xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<4x4xf16>
  %xc = phobos.local_load %c : !phobos.smem<4x4xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<4x4xf16>
  %xd = phobos.local_load %d : !phobos.smem<16x4xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<16x4xf16>
  phobos.return
}

// -----

// %q is written before the loop and read in it: it stays live for the
// whole loop, so the buffer written in the loop must not take its space
// (every iteration reads %q again). %early's last reader is before the
// loop: the loop's buffer reuses its space. Inside the loop, %k2 is written
// after %k's last reader and shares its space.
// CHECK-LABEL: phobos.kernel @loop
// CHECK-SAME: phobos.scratch_offset = 1536 : i64, phobos.shared_bytes = 1536 : i64
// CHECK: %[[Q:.*]] = phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK-NEXT: %[[E:.*]] = phobos.local_alloc %{{.*}} {offset = 768 : i64}
// CHECK-NEXT: phobos.dot %[[E]], %[[E]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[K:.*]] = phobos.local_alloc %{{.*}} {offset = 768 : i64}
// CHECK-NEXT: phobos.dot %[[Q]], %[[K]]
// CHECK-NEXT: %[[K2:.*]] = phobos.local_alloc %{{.*}} {offset = 768 : i64}
// CHECK-NEXT: phobos.dot %[[Q]], %[[K2]]
phobos.kernel @loop(%h: f16, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = phobos.fill %h : !phobos.tile<16x16xf16>
  %q = phobos.local_alloc %t : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %early = phobos.local_alloc %t : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %d0 = phobos.dot %early, %early kind(fma) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf32>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %k = phobos.local_alloc %t : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
    %d1 = phobos.dot %q, %k kind(fma) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf32>
    %k2 = phobos.local_alloc %t : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
    %d2 = phobos.dot %q, %k2 kind(fma) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf32>
  }
  phobos.return
}

// -----

// A buffer read in a loop nested two levels below its write stays live for
// the outer loop: the inner loop's buffer goes after it.
// CHECK-LABEL: phobos.kernel @nested_loops
// CHECK: %[[Q:.*]] = phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NEXT: %[[K:.*]] = phobos.local_alloc %{{.*}} {offset = 768 : i64}
// CHECK-NEXT: phobos.dot %[[Q]], %[[K]]
phobos.kernel @nested_loops(%h: f16, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = phobos.fill %h : !phobos.tile<16x16xf16>
  %q = phobos.local_alloc %t : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %n step %c1 : i32 {
      %k = phobos.local_alloc %t : !phobos.tile<16x16xf16> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
      %d = phobos.dot %q, %k kind(fma) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>, !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf32>
    }
  }
  phobos.return
}

// -----

#blocked = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#acc = #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 2], order = [1, 0]>

// Layout conversions (and transposes, reshapes, cross-warp reductions and
// scans) use a scratch region after the buffers, sized for the largest of
// them: converting 64x64 f32 takes 16 KiB.
// CHECK-LABEL: phobos.kernel @scratch
// CHECK-SAME: phobos.scratch_offset = 768 : i64, phobos.shared_bytes = 17152 : i64
phobos.kernel @scratch(%h: f16, %x: f32) {
  %t = phobos.fill %h : !phobos.tile<16x16xf16, #blocked>
  %a = phobos.local_alloc %t : !phobos.tile<16x16xf16, #blocked> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>>
  %y = phobos.local_load %a : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x16xf16, #blocked>
  %f = phobos.fill %x : !phobos.tile<64x64xf32, #acc>
  %c = phobos.convert_layout %f : !phobos.tile<64x64xf32, #acc> -> !phobos.tile<64x64xf32, #blocked>
  %small = phobos.fill %x : !phobos.tile<16x16xf32, #acc>
  %s = phobos.convert_layout %small : !phobos.tile<16x16xf32, #acc> -> !phobos.tile<16x16xf32, #blocked>
  phobos.return
}

// -----

#blocked = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>

// A reduction along the axis the 8 warps share needs one f32 partial per
// output element and warp: 64 x 8 x 4 bytes; one along the other axis
// stays within each warp and needs none. A kernel without buffers starts
// its scratch at 0.
// CHECK-LABEL: phobos.kernel @reduce_scratch
// CHECK-SAME: phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 2048 : i64
phobos.kernel @reduce_scratch(%x: f32) {
  %f = phobos.fill %x : !phobos.tile<64x64xf32, #blocked>
  %r0 = phobos.reduce sum %f along 0 : !phobos.tile<64x64xf32, #blocked> -> !phobos.tile<1x64xf32, #blocked>
  %r1 = phobos.reduce max %f along 1 : !phobos.tile<64x64xf32, #blocked> -> !phobos.tile<64x1xf32, #blocked>
  phobos.return
}

// CHECK-LABEL: phobos.kernel @nothing
// CHECK-SAME: phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64
phobos.kernel @nothing(%x: f32) {
  phobos.return
}

// -----

// More than one CTA may use (227 KiB on sm_90): 256 rows of (256 + 4) f32.
// expected-error @+1 {{the kernel needs 266240 bytes of shared memory, more than the 232448 one CTA may use; choose smaller tiles}}
phobos.kernel @too_much(%x: f32) {
  %t = phobos.fill %x : !phobos.tile<256x256xf32>
  %a = phobos.local_alloc %t : !phobos.tile<256x256xf32> -> !phobos.smem<256x256xf32, #phobos.shared<order = [1, 0], padding = 4>>
  phobos.return
}

// -----

// Atom layouts (wgmma operands) start on 1024-byte boundaries, where the
// hardware's swizzle pattern repeats: the second buffer skips from byte 32
// to 1024. A staged buffer's slots are 1024-byte multiples as well.
// CHECK-LABEL: phobos.kernel @atoms
// CHECK-SAME: phobos.shared_bytes = 7168 : i64
// CHECK: phobos.local_alloc %{{.*}} {offset = 0 : i64}
// CHECK: phobos.local_alloc %{{.*}} {offset = 1024 : i64}
// CHECK: phobos.local_buffer {offset = 5120 : i64}
phobos.kernel @atoms(%h: f16) {
  %t = phobos.fill %h : !phobos.tile<3x5xf16>
  %a = phobos.local_alloc %t : !phobos.tile<3x5xf16> -> !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>>
  %w = phobos.fill %h : !phobos.tile<64x32xf16>
  %b = phobos.local_alloc %w : !phobos.tile<64x32xf16> -> !phobos.smem<64x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>>
  %s = phobos.local_buffer : !phobos.smem<2x16x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>>
  %x = phobos.local_load %a : !phobos.smem<3x5xf16, #phobos.shared<order = [1, 0], padding = 0>> -> !phobos.tile<3x5xf16>
  %y = phobos.local_load %b : !phobos.smem<64x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>> -> !phobos.tile<64x32xf16>
  phobos.return
}

// -----

// Branches that never run together share bytes, but in a kernel marked
// warp_specialize the mbarrier arrays live for the whole kernel
// (tile-warp-specialize initialises them all at its start): each gets
// bytes no other buffer uses. Without the mark each array takes the bytes
// of its branch's buffer, unused after its definition.
// CHECK-LABEL: phobos.kernel @branches_specialized
// CHECK: phobos.local_buffer {offset = 0 : i64}
// CHECK: phobos.local_barriers {arrivals = 1 : i32, offset = 1024 : i64}
// CHECK: phobos.local_buffer {offset = 0 : i64}
// CHECK: phobos.local_barriers {arrivals = 1 : i32, offset = 1040 : i64}
// CHECK-LABEL: phobos.kernel @branches
// CHECK: phobos.local_barriers {arrivals = 1 : i32, offset = 0 : i64}
// CHECK: phobos.local_barriers {arrivals = 1 : i32, offset = 0 : i64}
phobos.kernel @branches_specialized(%flag: i1, %i: i32) attributes {warp_specialize} {
  scf.if %flag {
    %a = phobos.local_buffer : !phobos.smem<2x16x16xf16, #phobos.shared<order = [1, 0], padding = 0>>
    %full = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
    phobos.mbarrier_wait %full[%i], %i : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
  } else {
    %b = phobos.local_buffer : !phobos.smem<2x16x16xf16, #phobos.shared<order = [1, 0], padding = 0>>
    %full = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
    phobos.mbarrier_wait %full[%i], %i : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
  }
  phobos.return
}
phobos.kernel @branches(%flag: i1, %i: i32) {
  scf.if %flag {
    %a = phobos.local_buffer : !phobos.smem<2x16x16xf16, #phobos.shared<order = [1, 0], padding = 0>>
    %full = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
    phobos.mbarrier_wait %full[%i], %i : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
  } else {
    %b = phobos.local_buffer : !phobos.smem<2x16x16xf16, #phobos.shared<order = [1, 0], padding = 0>>
    %full = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
    phobos.mbarrier_wait %full[%i], %i : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
  }
  phobos.return
}
