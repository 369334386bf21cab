// ctx.block.{x,y,z} and program_id(0/1/2) are the CTA's coordinates,
// ctx.grid.{x,y,z} the grid's extents; every CTA of the grid runs once. The
// grid is given (--grid) or inferred from `ctx.block.x * S` slice offsets:
// ceil(N / S) CTAs.
// RUN: phobos-run %s --interpret --kernel ids --grid 3,2,2 --print | FileCheck %s --check-prefix=IDS
// RUN: phobos-run %s --interpret --kernel ids --grid 3,2,2 --cpu-threads 1 --print | FileCheck %s --check-prefix=IDS
// RUN: phobos-run %s --interpret --kernel inferred --dim N=10 --print | FileCheck %s --check-prefix=INFERRED

kernel ids(Block: tensor<i32>[2, 2, 3], Pid: tensor<i32>[2, 2, 3], Grid: tensor<i32>[2, 2, 3]) {
    let x = ctx.block.x
    let y = ctx.block.y
    let z = ctx.block.z
    Block[z, y, x] = x + 10 * y + 100 * z
    Pid[program_id(2), program_id(1), program_id(0)] = program_id(0) + 10 * program_id(1) + 100 * program_id(2)
    Grid[z, y, x] = ctx.grid.x + 10 * ctx.grid.y + 100 * ctx.grid.z
}

// IDS: ids [-] interpreter grid (3,2,2)
// IDS-NEXT: Block = [0, 1, 2; 10, 11, 12; 100, 101, 102; 110, 111, 112]
// IDS-NEXT: Pid = [0, 1, 2; 10, 11, 12; 100, 101, 102; 110, 111, 112]
// IDS-NEXT: Grid = [223, 223, 223; 223, 223, 223; 223, 223, 223; 223, 223, 223]

@autotune(B in [4])
kernel inferred(Out: tensor<i32>[N]) {
    let base = ctx.block.x * B
    Out[base :+ B] = ctx.block.x * 100 + ctx.grid.x * 10 + arange(B)
}

// INFERRED: inferred [B=4] interpreter grid (3,1,1) N=10
// INFERRED-NEXT: Out = [30, 31, 32, 33, 130, 131, 132, 133, 230, 231]
