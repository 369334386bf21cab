// A @persistent kernel's CTAs walk the grid of its tiles, which follows from
// the extents: the interpreter, like the GPU path, takes that grid only. Run
// on another, it would leave the tiles beyond it unwritten.
// RUN: not phobos-run %s --interpret --dim N=32 --grid 2 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not phobos-tune %s --backend interpreter --dim N=32 --grid 2 --check none 2>&1 | FileCheck %s --check-prefix=TUNE
// RUN: phobos-run %s --interpret --dim N=32 --grid 4 --init x=iota --print | FileCheck %s
// RUN: phobos-run %s --interpret --dim N=32 --init x=iota --print | FileCheck %s

@persistent
kernel doubled(x: tensor<f32>[N], y: tensor<f32>[N]) {
    let base = ctx.block.x * 8
    y[base :+ 8] = 2.0 * x[base :+ 8]
}

// GRID: phobos-run: the kernel is persistent: its CTAs walk the grid (4, 1, 1) of its tiles, and the launcher chooses how many it starts; a grid (2, 1, 1) cannot be given (--grid)
// TUNE: the kernel is persistent: its CTAs walk the grid (4, 1, 1) of its tiles, and the launcher chooses how many it starts; a grid (2, 1, 1) cannot be given
// CHECK: y = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62]
