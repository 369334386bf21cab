// RUN: phobos-opt %s --convert-tile-to-gpu --allow-unregistered-dialect --split-input-file -verify-diagnostics

// What the lowering refuses, at the op's location.

#acc = #phobos.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>

// A dot still reading registers: tile-promote-shared did not run.
phobos.kernel @unpromoted(%x: f32) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %x : !phobos.tile<4x8xf32, #acc>
  // expected-error @+1 {{'phobos.dot' op operands must be in shared memory (run tile-promote-shared)}}
  %d = phobos.dot %a, %a transpose_b kind(fma) : !phobos.tile<4x8xf32, #acc>, !phobos.tile<4x8xf32, #acc> -> !phobos.tile<4x4xf32, #acc>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// f64 exp, exp2, log, log2 and tanh have no fast NVPTX path (and no libdevice is linked).
phobos.kernel @exp_f64(%x: f64) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %x : !phobos.tile<32xf64, #l>
  // expected-error @+1 {{'phobos.exp' op f64 exp, exp2, log, log2 and tanh are not supported on the GPU}}
  %e = phobos.exp %a : !phobos.tile<32xf64, #l>
  phobos.return
}

// -----

phobos.kernel @log_f64_scalar(%x: f64) attributes {max_threads = 32 : i32} {
  // expected-error @+1 {{'math.log' op f64 exp, exp2, log, log2 and tanh are not supported on the GPU}}
  %e = math.log %x : f64
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

phobos.kernel @tanh_f64(%x: f64) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %x : !phobos.tile<32xf64, #l>
  // expected-error @+1 {{'phobos.tanh' op f64 exp, exp2, log, log2 and tanh are not supported on the GPU}}
  %t = phobos.tanh %a : !phobos.tile<32xf64, #l>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

phobos.kernel @exp2_f64(%x: f64) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %x : !phobos.tile<32xf64, #l>
  // expected-error @+1 {{'phobos.exp2' op f64 exp, exp2, log, log2 and tanh are not supported on the GPU}}
  %t = phobos.exp2 %a : !phobos.tile<32xf64, #l>
  phobos.return
}

// -----

phobos.kernel @log2_f64_scalar(%x: f64) attributes {max_threads = 32 : i32} {
  // expected-error @+1 {{'math.log2' op f64 exp, exp2, log, log2 and tanh are not supported on the GPU}}
  %e = math.log2 %x : f64
  phobos.return
}

// -----

// Every tile must carry a layout: tile-assign-layouts did not run.
phobos.kernel @no_layout(%x: f32) attributes {max_threads = 32 : i32} {
  // expected-error @+1 {{'phobos.fill' op has a tile without a layout; run tile-assign-layouts first}}
  %a = phobos.fill %x : !phobos.tile<32xf32>
  phobos.return
}

// -----

#a = #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// ldmatrix reads 16-byte rows: an unpadded-to-16-bytes f16 buffer (16 + 4
// halves a row) cannot feed mma.sync.
phobos.kernel @mma_rows(%h: f16) attributes {max_threads = 32 : i32, phobos.barriers, phobos.scratch_offset = 1024 : i64, phobos.shared_bytes = 1024 : i64} {
  %a = phobos.fill %h : !phobos.tile<16x16xf16, #a>
  %sa = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<16x16xf16, #a> -> !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 4>>
  %b = phobos.fill %h : !phobos.tile<16x8xf16, #a>
  %sb = phobos.local_alloc %b {offset = 640 : i64} : !phobos.tile<16x8xf16, #a> -> !phobos.smem<16x8xf16, #phobos.shared<order = [1, 0], padding = 8>>
  // expected-error @+1 {{'phobos.dot' op mma_sync operands need shared-memory rows of a multiple of 16 bytes (pad the buffer)}}
  %d = phobos.dot %sa, %sb kind(mma_sync) : !phobos.smem<16x16xf16, #phobos.shared<order = [1, 0], padding = 4>>, !phobos.smem<16x8xf16, #phobos.shared<order = [1, 0], padding = 8>> -> !phobos.tile<16x8xf32, #mma>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// Shared memory without its barriers: tile-insert-barriers did not run.
phobos.kernel @no_barriers(%x: f32) attributes {max_threads = 32 : i32, phobos.scratch_offset = 128 : i64, phobos.shared_bytes = 128 : i64} {
  %a = phobos.fill %x : !phobos.tile<32xf32, #l>
  // expected-error @+1 {{'phobos.local_alloc' op uses shared memory, but its barriers are not placed; run tile-insert-barriers first}}
  %s = phobos.local_alloc %a {offset = 0 : i64} : !phobos.tile<32xf32, #l> -> !phobos.smem<32xf32, #phobos.shared<order = [0], padding = 0>>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// An op the conversion has no pattern for is reported by the framework.
phobos.kernel @unknown_op(%x: f32) attributes {max_threads = 32 : i32} {
  %a = phobos.fill %x : !phobos.tile<32xf32, #l>
  // expected-error @+1 {{failed to legalize operation 'test.unknown'}}
  %b = "test.unknown"(%a) : (!phobos.tile<32xf32, #l>) -> !phobos.tile<32xf32, #l>
  phobos.return
}
