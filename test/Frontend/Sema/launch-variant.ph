// RUN: phobos-translate --import-phobos %s | FileCheck %s
// RUN: phobos-translate --import-phobos %s --variant TILE_M=256 | FileCheck %s --check-prefix=V256
// RUN: not phobos-translate --import-phobos %s --variant TILE_M=40 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not phobos-translate --import-phobos %s --variant TILE_M=1024 2>&1 | FileCheck %s --check-prefix=BIG

// @launch's thread count may be an expression of the @autotune names: the CTA
// size is then a tuning choice, as num_warps is in a Triton config. It is
// resolved, and checked, for each variant.
@autotune(TILE_M in [64, 128, 256, 40, 1024])
@launch(2 * TILE_M, 1)
kernel scaled(o: tensor<i32>[N]) {
    o[0] = TILE_M
}
// CHECK-LABEL: phobos.kernel @scaled
// CHECK-SAME: max_threads = 128 : i32
// CHECK-SAME: min_blocks = 1 : i32
// V256-LABEL: phobos.kernel @scaled
// V256-SAME: max_threads = 512 : i32

// BAD: launch-variant.ph:10:11: error: maxThreads must be a positive multiple of 32 up to 1024, got 80
// BIG: launch-variant.ph:10:11: error: maxThreads must be a positive multiple of 32 up to 1024, got 2048
