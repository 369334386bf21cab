// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-fold-transposed-operands))' --split-input-file | FileCheck %s

// A wgmma dot whose A is the staged transpose of a 16-bit register tile x
// [K, M] = [32, 64] stages x itself ([32, 64], M contiguous, 128-byte
// atoms) and reads it transposed (transpose_a); the transpose and its
// buffer go.
#bl = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#bb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#s128 = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#mma = #phobos.mma<warpsPerCTA = [4, 1]>

// CHECK-LABEL: phobos.kernel @fold
// CHECK: %[[X:.*]] = phobos.fill %{{.*}} : !phobos.tile<32x64xf16
// CHECK-NOT: phobos.transpose
// CHECK: %[[S:.*]] = phobos.local_alloc %[[X]] : !phobos.tile<32x64xf16, {{.*}}> -> !phobos.smem<32x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
// CHECK-NOT: phobos.transpose
// CHECK: phobos.dot %[[S]], %{{.*}} transpose_a kind(wgmma) : !phobos.smem<32x64xf16, {{.*}}>, !phobos.smem<32x128xf16, {{.*}}> -> !phobos.tile<64x128xf32
phobos.kernel @fold(%h: f16, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %x = phobos.fill %h : !phobos.tile<32x64xf16, #bl>
  %t = phobos.transpose %x : !phobos.tile<32x64xf16, #bl> -> !phobos.tile<64x32xf16, #bt>
  %st = phobos.local_alloc %t : !phobos.tile<64x32xf16, #bt> -> !phobos.smem<64x32xf16, #sa>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #bb>
  %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #bb> -> !phobos.smem<32x128xf16, #s128>
  %d = phobos.dot %st, %sb kind(wgmma) : !phobos.smem<64x32xf16, #sa>, !phobos.smem<32x128xf16, #s128> -> !phobos.tile<64x128xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A transpose with another user stays for it; the dot still reads x.
#bl = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#bb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#s128 = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#mma = #phobos.mma<warpsPerCTA = [4, 1]>

// CHECK-LABEL: phobos.kernel @transpose_kept
// CHECK: %[[T:.*]] = phobos.transpose
// CHECK: phobos.dot %{{.*}}, %{{.*}} transpose_a kind(wgmma)
// CHECK: phobos.store %[[T]]
phobos.kernel @transpose_kept(%h: f16, %C: !phobos.tensor<?x?xf32>, %T: !phobos.tensor<?x?xf16>) attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %x = phobos.fill %h : !phobos.tile<32x64xf16, #bl>
  %t = phobos.transpose %x : !phobos.tile<32x64xf16, #bl> -> !phobos.tile<64x32xf16, #bt>
  %st = phobos.local_alloc %t : !phobos.tile<64x32xf16, #bt> -> !phobos.smem<64x32xf16, #sa>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #bb>
  %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #bb> -> !phobos.smem<32x128xf16, #s128>
  %d = phobos.dot %st, %sb kind(wgmma) : !phobos.smem<64x32xf16, #sa>, !phobos.smem<32x128xf16, #s128> -> !phobos.tile<64x128xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.store %t, %T[%c0, %c0] : !phobos.tile<64x32xf16, #bt>, !phobos.tensor<?x?xf16>
  phobos.return
}

// -----

// Left alone: an mma.sync dot (its A is read K-major through ldmatrix), a
// tf32 operand (wgmma reads 32-bit operands K-major only), and an M of 32
// (less than a 128-byte atom: wgmma's M-major A takes whole atoms here).
#bl = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#bb = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>
#pad = #phobos.shared<order = [1, 0], padding = 8>
#s128 = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
#mma = #phobos.mma<warpsPerCTA = [4, 1]>

// CHECK-LABEL: phobos.kernel @left_alone
// CHECK-NOT: transpose_a
// CHECK: phobos.return
phobos.kernel @left_alone(%h: f16, %f: f32, %C: !phobos.tensor<?x?xf32>) attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %x = phobos.fill %h : !phobos.tile<32x64xf16, #bl>
  %t = phobos.transpose %x : !phobos.tile<32x64xf16, #bl> -> !phobos.tile<64x32xf16, #bt>
  %st = phobos.local_alloc %t : !phobos.tile<64x32xf16, #bt> -> !phobos.smem<64x32xf16, #pad>
  %b = phobos.fill %h : !phobos.tile<32x128xf16, #bb>
  %sb = phobos.local_alloc %b : !phobos.tile<32x128xf16, #bb> -> !phobos.smem<32x128xf16, #pad>
  %d = phobos.dot %st, %sb kind(mma_sync) : !phobos.smem<64x32xf16, #pad>, !phobos.smem<32x128xf16, #pad> -> !phobos.tile<64x128xf32, #mma>
  phobos.store %d, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  %xf = phobos.fill %f : !phobos.tile<32x64xf32, #bl>
  %tf = phobos.transpose %xf : !phobos.tile<32x64xf32, #bl> -> !phobos.tile<64x32xf32, #bt>
  %sf = phobos.local_alloc %tf : !phobos.tile<64x32xf32, #bt> -> !phobos.smem<64x32xf32, #pad>
  %bf = phobos.fill %f : !phobos.tile<32x128xf32, #bb>
  %sbf = phobos.local_alloc %bf : !phobos.tile<32x128xf32, #bb> -> !phobos.smem<32x128xf32, #pad>
  %e = phobos.dot %sf, %sbf precision(tf32) kind(wgmma) : !phobos.smem<64x32xf32, #pad>, !phobos.smem<32x128xf32, #pad> -> !phobos.tile<64x128xf32, #mma>
  phobos.store %e, %C[%c0, %c0] : !phobos.tile<64x128xf32, #mma>, !phobos.tensor<?x?xf32>
  %y = phobos.fill %h : !phobos.tile<32x32xf16, #bl>
  %ty = phobos.transpose %y : !phobos.tile<32x32xf16, #bl> -> !phobos.tile<32x32xf16, #bt>
  %sy = phobos.local_alloc %ty : !phobos.tile<32x32xf16, #bt> -> !phobos.smem<32x32xf16, #sa>
  %g = phobos.dot %sy, %sb kind(wgmma) : !phobos.smem<32x32xf16, #sa>, !phobos.smem<32x128xf16, #pad> -> !phobos.tile<32x128xf32, #mma>
  phobos.store %g, %C[%c0, %c0] : !phobos.tile<32x128xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}
