//===- Passes.td - Passes on the phobos tile dialect -------*- tablegen -*-===//
//
// The tile-level stages of the GPU pipeline: clean-ups on the source's
// tiles, then the decisions that make tiles runnable (MMA kind, layouts,
// shared memory).
//
// Why this file is long: it is the one ODS file of the dialect's passes
// (as each MLIR dialect keeps its own), which tablegen turns into the pass
// classes and docs/passes/PhobosTilePasses.md; each record is one pass's
// options and description, and no two share text a split would separate.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGroupBlocks : Pass<"tile-group-blocks", "::phobos::tile::KernelOp"> {
  let summary = "orders a GEMM's CTAs in groups of tile rows (Triton's GROUP_SIZE_M)";
  let description = [{
    The hardware starts CTAs with `ctx.block.x` fastest. When a dot in a
    loop reads A at offsets from exactly one of `ctx.block.x` and
    `ctx.block.y` and B from exactly the other (a GEMM's tile grid), the
    block indices are relabelled (`phobos.block_id ... group G`) so that
    consecutive CTAs cover `group-size` values of x and then move along y:
    the CTAs running at once share a few tile rows of A and a few tile columns of B instead of
    one column of B and all of A. The relabelling is a bijection of the
    launched grid (`pid = y * gx + x`, then Triton's grouped mapping, the
    last group smaller), so any grid, even one larger than the contract's,
    still runs every CTA once. Groups of 8 are the default because the
    L2 reuse grows with the group until the CTAs running at once no
    longer fit in one (docs/benchmarks-log.md has the sweep). Other kernels
    (attention: block.y is the head whose K and V all its CTAs read) are
    left alone.

    Before: `%m = phobos.block_id x`, `%n = phobos.block_id y`
    After:  `%m = phobos.block_id x group 8`, `%n = phobos.block_id y group 8`
  }];
  let options = [
    Option<"groupSize", "group-size", "int64_t", /*default=*/"8",
           "Tile rows (x values) per group; below 2 the pass does nothing">
  ];
  let statistics = [
    Statistic<"numGrouped", "num-grouped", "Kernels whose CTAs were regrouped">
  ];
}

def TilePersistent : Pass<"tile-persistent", "::phobos::tile::KernelOp"> {
  let summary = "makes a @persistent kernel's CTAs loop over the grid's tiles";
  let description = [{
    A kernel with `@persistent` runs as many CTAs as the GPU holds at once
    (the launcher chooses the grid: `(P, 1, 1)`, P the resident CTAs, at
    most the number of tiles), each looping over the tiles of the grid the
    source describes (the one the launch contract infers from the slices'
    `ctx.block` offsets): tile `t` from its x index, by the launched grid's
    x extent. Per tile, `phobos.block_id` becomes `phobos.tile_coord` of
    the tile (with the same group, so tile-group-blocks' order holds) and
    `phobos.grid_dim` the tile grid's extent. The tile grid is computed in
    the kernel from the tensors' extents, so any P >= 1 computes the whole
    grid. What a CTA keeps from one tile to the next (tile-pipeline's TMA
    mbarriers, whose phases then count across tiles) is the point: a CTA
    need not be started, nor its mbarriers initialised, per tile.

    The grid must follow from the slices (every `ctx.block` axis the body
    reads offsets a load or store); otherwise the pass reports it.

    Before:
    ```mlir
    %m = phobos.block_id x group 8
    ... body ...
    phobos.return
    ```
    After:
    ```mlir
    %gx = ... ceil(M / 128) ...   %gy = ... ceil(N / 256) ...
    %first = phobos.block_id x
    %ctas = phobos.grid_dim x
    scf.for %t = %first to %tiles step %ctas : i32 {
      %m = phobos.tile_coord x of %t in %gx, %gy group 8
      ... body ...
    } {phobos.tile_loop}
    phobos.return
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileUnswitchLoops : Pass<"tile-unswitch-loops", "::phobos::tile::KernelOp"> {
  let summary = "runs a loop as two copies when a boolean the loop reads is fixed before it";
  let description = [{
    A loop that reads a scalar `bool` defined before it (a kernel argument
    such as `causal`, or a test of the extents) runs as
    `if c { loop with c = true } else { loop with c = false }`: each copy
    folds its `where(c, a, b)` to one side, so a mask that depends on the
    flag costs nothing in the iterations that do not need it, and the
    folded masks can then fold further (tile-split-ragged-loops folds a
    column check `k + arange(BC) < N` in the mask-free main loop only
    when it is not hidden under a `where` of the flag). The scalar ops
    before the loop that compute its bounds or initial values from `c` are
    copied into each branch with `c` fixed, so `range(0, where(causal,
    tmin(N, row + BR), N), BC)` becomes `range(0, N, BC)` in the
    non-causal copy. Triton gets the same code when the author declares
    the flag `tl.constexpr` (its tutorial's `STAGE`); here the compiler
    does it for a run-time flag. At most `max-copies` copies of a loop
    nest are made (each unswitched flag doubles its code), the outermost
    loops first.

    Before: `scf.for %k ... { %m = phobos.select %causal, %a, %b ... }`
    After:  `scf.if %causal { scf.for %k ... { phobos.select %true, ... } }
             else { scf.for %k ... { phobos.select %false, ... } }`,
            the selects folded by the canonicalizer that follows.
  }];
  let options = [
    Option<"maxCopies", "max-copies", "int64_t", /*default=*/"4",
           "The most copies of one loop nest (2 to the number of flags unswitched)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numUnswitched", "num-unswitched", "Loops run as two copies">
  ];
}

def TileHoistInvariants : Pass<"tile-hoist-invariants", "::phobos::tile::KernelOp"> {
  let summary = "moves loop-invariant loads and computations out of loops";
  let description = [{
    Loop-invariant code motion that also moves `phobos.load`s (whose
    masking makes them safe to execute even when the loop runs zero times)
    of tensors the loop does not write (distinct tensor arguments are
    distinct memory). A tile read once instead of every iteration: the query block
    of attention, a row of weights, a scale. Scalar loads stay (out of range
    they are errors in the interpreter).

    Before: `scf.for ... { %q = phobos.load %Q[%r, %c0] ... }`
    After:  `%q = phobos.load %Q[%r, %c0] ...` then `scf.for ... { ... }`
  }];
  let statistics = [
    Statistic<"numHoisted", "num-hoisted", "Operations moved out of loops">
  ];
}

def TileDropMasks : Pass<"tile-drop-masks", "::phobos::tile::KernelOp"> {
  let summary = "marks slice axes that cannot leave their tensor";
  let description = [{
    Sets `in_bounds` on the axes of loads and stores that are proven inside
    the tensor, so that the GPU code computes no mask for them:
    - static extents: a constant offset whose slice fits (`:` on a
      compile-time dim, `D` named by an @autotune name);
    - loop induction variables: `for k in range(0, N, S)` slicing
      `k :+ E` along a dim named `N` with `E <= S`, where `@aligned(N = M)`
      promises (and the launcher checks) that `N` is a multiple of `S`, or
      `N` is static and a multiple of `S`.
    Offsets from `ctx.block` are left masked: an explicit grid may be
    larger than the one the contract infers.
    In such a loop (every step whole), the kernel's own checks of its
    columns against the bound, `k + arange(E) < N` (or `N > ...`, E <= S),
    fold too: a `where` on one becomes its first value.
  }];
  let statistics = [
    Statistic<"numAxes", "num-axes", "Slice axes proven in bounds">
  ];
}

def TileDeferLaneSums : Pass<"tile-defer-lane-sums", "::phobos::tile::KernelOp"> {
  let summary = "keeps a loop-carried row sum per lane and combines the lanes after the loop";
  let description = [{
    A loop-carried f32 tile of extent 1 along an axis (a row sum `[R, 1]`),
    zero before the loop (or carried on from such a loop), that the loop
    only updates by adding sums along that axis and multiplying by values
    the same in every lane (`l = c * l + rowsum(p)`), and that nothing else
    in the loop reads. Where those sums combine the lanes of one warp, they
    are marked `keep_lane_partials` (each lane keeps its own part) and a
    `combine_lane_partials` sum after the loop adds the lanes once: the
    loop no longer shuffles for them. Runs on laid-out tiles; the values
    do not change.
  }];
  let statistics = [
    Statistic<"numDeferred", "num-deferred", "Loop-carried sums combined after their loop">
  ];
}

def TileSkipFullMasks : Pass<"tile-skip-full-masks", "::phobos::tile::KernelOp"> {
  let summary = "puts a `where` on a mask an iteration proves true under a uniform branch";
  let description = [{
    A compare of the loop's positions `k + arange(E)` with ones fixed before
    it (`<=`, `<`, `>=`, `>`; several joined by `and`) holds for the whole
    tile when its extreme pair does (`k + E - 1 <= r`). Each `where` on such
    a mask becomes an `scf.if` on that scalar test: the `where`'s first
    value when it holds, the mask and the `where` otherwise (a causal loop
    skips them below the diagonal). Loops that run at most once are left.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numSkipped", "num-skipped", "Masks put under a branch">
  ];
}

def TileSplitRaggedLoops : Pass<"tile-split-ragged-loops", "::phobos::tile::KernelOp"> {
  let summary = "splits a loop over a ragged dim into a mask-free body and a remainder";
  let description = [{
    A loop `for k in range(0, N, S)` whose body slices `k :+ E` (E <= S)
    along a dim named `N` runs as two loops: up to the last whole step,
    `(N / S) * S`, with those slice axes marked `in_bounds`, then the at
    most one ragged iteration with the masks. The carried values pass from
    the first loop to the second. The kernel's own column checks
    `k + arange(E) < N` fold in the first loop (a `where` on one becomes its
    first value), as the masks do. When none folded (the loops then differ
    only by the in-bounds promises), the remainder is marked
    `phobos.ragged_remainder`: tile-pipeline may fold it back into a main
    loop whose TMA copies are correct past the bound.

    Before: `scf.for %k = %c0 to %N step %c16 { phobos.load %A[%m, %k] }`
    After:  `%full = (%N / 16) * 16`,
            `scf.for %k = %c0 to %full step %c16 { phobos.load %A[%m, %k] {in_bounds = array<i1: false, true>} }`,
            `scf.for %k = %full to %N step %c16 { phobos.load %A[%m, %k] }`
  }];
  let statistics = [
    Statistic<"numSplit", "num-split", "Loops split">
  ];
}

def TileSelectMma : Pass<"tile-select-mma", "::phobos::tile::KernelOp"> {
  let summary = "chooses the instructions each dot runs on";
  let description = [{
    Sets `kind` on every `phobos.dot`:
    - `wgmma` (Hopper's warpgroup MMA, m64nNk16, operands read from shared
      memory through matrix descriptors) on `chip=sm_90a` when the operands
      are 16-bit (f16, bf16, or f32 rounded by `@tensorcore(f16|bf16)`),
      the CTA is whole warpgroups (warps a multiple of 4) and the tile fits
      one: M = 16 x warps (each warp owns 16 rows, each warpgroup 64), N a
      multiple of 16 up to 256, K a multiple of 16 (8 for tf32). A tf32
      dot whose B is stored [K, N] (wgmma reads tf32 only K-major) and that
      accumulates alone into a loop-carried tile (a GEMM's main loop) takes
      `swap_ab` instead when N = 16 x warps and M is a multiple of 8 up to
      256: each warpgroup computes 64 columns of the transpose, reading B's
      fragments through registers, and no operand is transposed on its way
      to shared memory;
    - `mma_sync` (warp-level mma.sync m16n8k16, or m16n8k8 for tf32) when
      the operands are f16 or bf16, or f32 rounded by `@tensorcore`, and
      the tile shape fits the fragments and the CTA's warps;
    - `fma` (exact per-thread FMA micro-tiles) otherwise.

    Before: `%c = phobos.dot %a, %b : ...`
    After:  `%c = phobos.dot %a, %b kind(wgmma) : ...`
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_80\"",
           "The GPU the kernel is for; sm_90a enables wgmma">
  ];
  let statistics = [
    Statistic<"numWgmma", "num-wgmma", "Dots on warpgroup MMA (sm_90a)">,
    Statistic<"numSwapped", "num-swapped",
              "wgmma dots that compute the transpose (swap_ab)">,
    Statistic<"numMma", "num-mma", "Dots on mma.sync tensor cores">,
    Statistic<"numFma", "num-fma", "Dots on FMA units">
  ];
}

def TileDeferDots : Pass<"tile-defer-dots", "::phobos::tile::KernelOp"> {
  let summary = "runs a loop's accumulating wgmma under the next iteration";
  let description = [{
    In a loop from 0 with two wgmma dots, the first from zero (attention's
    S = Q K^T) and the second accumulating into an iteration argument
    after a rescale of it (`acc = corr * acc + P @ V`), defers the second
    dot by one iteration, FlashAttention 3's overlap within a warpgroup:
    each iteration issues its first dot and the previous iteration's second
    one back to back (`in_flight = 1` on both), waits for the first with
    one group still pending, runs the softmax while the second dot runs,
    and waits for it (`phobos.wgmma_wait` holding the carried P registers)
    only for the rescale, which moves to the end of the body. The loop
    carries P (zero at first: the first iteration adds `0 @ V[-step]`, a
    masked read outside the tensor) and the rescaled accumulator; a copy of
    the second dot after the loop adds the last block. Every element is
    computed by the same operations in the same order. Loops that write
    V's tensor, start elsewhere than 0, or whose accumulator is used by anything but
    its rescale are left alone, and so are dots too small to pay for it:
    the overlap needs the deferred dot to run about as long as the softmax
    beside it, so its accumulator must be at least `min-columns` wide
    (tf32 counting twice: it runs at half the f16 rate) and its depth (S's
    columns) at least `min-depth`: below that the registers the deferred
    dot holds across the softmax cost more than the overlap wins (at D 64
    the kernel drops from two CTAs per SM to one). A kernel that asks for a
    producer warpgroup (`@warp_specialize`) runs one CTA per SM whose
    consumers hold up to 232 registers: there only `min-depth` applies.
    The defaults follow the measurements in docs/benchmarks-log.md.

    Before:
    ```mlir
    scf.for %kb = %c0 to %ub step %c64 iter_args(%acc = %0) ... {
      %s = phobos.dot %q, %k transpose_b kind(wgmma) ...
      ... softmax(%s) -> %p, %corr ...
      %r = phobos.mul %corr, %acc ...
      %d = phobos.dot %p, %v, %r kind(wgmma) ...
      scf.yield %d
    ```
    After:
    ```mlir
    scf.for %kb = %c0 to %ub step %c64 iter_args(%acc = %0, %p0 = %zero) ... {
      %s0 = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} ...
      %v0 = phobos.load %V[%bh, %kb - %c64, %c0] ...
      %d0 = phobos.dot %p0, %v0, %acc kind(wgmma) {in_flight = 1 : i32} ...
      %s = phobos.wgmma_wait %s0 {pending = 1 : i32} ...
      ... softmax(%s) -> %p, %corr ...
      %d = phobos.wgmma_wait %d0 holding %p0 ... {pending = 0 : i32} ...
      %r = phobos.mul %corr, %d ...
      scf.yield %r, %p
    }
    %last = phobos.dot %loop#1, %v_last, %loop#0 kind(wgmma) ...
    ```
  }];
  let options = [
    Option<"minColumns", "min-columns", "int64_t", /*default=*/"128",
           "Defer only dots whose accumulator is at least this wide (tf32 "
           "counts twice)">,
    Option<"minDepth", "min-depth", "int64_t", /*default=*/"64",
           "Defer only dots whose K extent is at least this">
  ];
  let statistics = [
    Statistic<"numDeferred", "num-deferred",
              "Accumulating dots run under the next iteration">
  ];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::phobos::tile::KernelOp"> {
  let summary = "decides which thread holds which element of every tile";
  let description = [{
    Gives every tile value a layout encoding: the MMA or FMA micro-tile
    layout for dot results, a coalesced blocked layout (16-byte vectors per
    thread along the fastest axis) for loads and the rest, and slice
    layouts for operands that broadcast from a lower rank. Element-wise
    ops follow their dot-derived operands, loop-carried tiles take the
    layout their loop body produces, and producers with no preference
    (fill, arange) take their user's. Where an op still needs its operand
    in another layout, a cheap producer is moved or computed again in it
    (an element-wise chain over fills, aranges, scalars and tiles at most
    an eighth of its size, which are converted once where they are
    defined: attention's causal mask in the scores' layout, as Triton's
    RemoveLayoutConversions rematerialises). A producer reached through a
    reshape that only adds unit axes takes the slice of the needed layout
    (attention backward's `reshape(lse[b, r0 :+ BR], 1, BR)` is loaded in
    the scores' column slice; the reshape then only renames registers).
    Otherwise an explicit `phobos.convert_layout` appears: where its user
    is, or once after the operand's definition when the operand is
    invariant in the loop around its user.

    Before: `%t = phobos.load %A[...] : ... -> !phobos.tile<64x16xf32>`
    After:  `%t = phobos.load %A[...] : ... -> !phobos.tile<64x16xf32, #phobos.blocked<...>>`
  }];
  let statistics = [
    Statistic<"numConversions", "num-conversions",
              "Layout conversions inserted">
  ];
}

def TilePromoteShared : Pass<"tile-promote-shared", "::phobos::tile::KernelOp"> {
  let summary = "stages dot operands in shared memory";
  let description = [{
    Replaces each register-tile operand of a `phobos.dot` by a
    `phobos.local_alloc` into a shared-memory buffer laid out for the dot's
    kind: for FMA, A is stored transposed (M contiguous) so that a thread
    reads its rows of a k-slice as 16-byte vectors; for mma.sync, A is
    row-major, a 16-bit B keeps its [K, N] rows (ldmatrix.trans transposes
    it on the way to registers) and a tf32 B is stored K-contiguous; every
    buffer is padded by 16 bytes a row so that fragment loads hit different
    banks. f32 operands that the dot
    rounds to f16 or bf16 are converted before they are stored.

    One operand stays in registers: a wgmma's 16-bit A that is already in
    the dot's accumulator layout (attention's P, computed from the scores'
    accumulator), whose registers are wgmma's A fragments as they are; it
    needs no buffer, no stores and no barriers around them (rounded to the
    dot's precision in registers first).

    Before: `%c = phobos.dot %a, %b kind(fma) : !phobos.tile<...>, ...`
    After:  `%sa = phobos.local_alloc %a : ... -> !phobos.smem<...>` and
            `%c = phobos.dot %sa, %sb kind(fma) : !phobos.smem<...>, ...`
  }];
  let statistics = [
    Statistic<"numPromoted", "num-promoted", "Dot operands staged">,
    Statistic<"numInRegisters", "num-in-registers",
              "wgmma A operands read from registers, not staged">
  ];
}

def TileFoldTransposedOperands
    : Pass<"tile-fold-transposed-operands", "::phobos::tile::KernelOp"> {
  let summary = "lets a wgmma read a transposed 16-bit A in its own layout";
  let description = [{
    A wgmma dot whose A tile-promote-shared staged from `transpose(x)`, x a
    16-bit register tile `[K, M]` (M a multiple of 64, K of 16), stages x
    instead, `[K, M]` in 128-byte swizzled atoms with M contiguous, and
    marks the dot `transpose_a`: wgmma reads that A M-major
    (imm-trans-a), so the tile crosses shared memory once and the
    transpose, which moved it between threads through shared memory with
    2-byte stores, goes (an attention backward's dQ += dS K from the dS^T
    it holds).

    Before: `%t = phobos.transpose %x`, `%s = phobos.local_alloc %t`,
            `phobos.dot %s, %k kind(wgmma)`
    After:  `%s = phobos.local_alloc %x : ... -> !phobos.smem<KxM...>`,
            `phobos.dot %s, %k transpose_a kind(wgmma)`
  }];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Transposed A operands folded">
  ];
}

def TileSwizzleShared : Pass<"tile-swizzle-shared", "::phobos::tile::KernelOp"> {
  let summary = "chooses each shared-memory buffer's bank layout: swizzle, padding or plain";
  let description = [{
    For each `phobos.local_alloc`, collects how the buffer is written (the
    vector stores of the tile it copies in, which the software pipeline
    turns into 16-byte cp.async) and read (ldmatrix rows for mma.sync dots,
    k-slice vector loads for FMA dots, element loads of `local_load`), and
    counts the shared-memory wavefronts each candidate layout costs on a
    model of the 32 banks (BankConflicts.h): an XOR swizzle of 16-byte
    units (`swizzle = [vec, perPhase, maxPhase]`), the plain layout, and
    the padded one `tile-promote-shared` chose. The fewest excess
    wavefronts wins, then the least memory, then the plain layout (its
    addresses need no XOR); the swizzle thus replaces the padding wherever
    it is conflict-free too, and the plain layout both where nothing
    conflicts.

    With `report`, a remark on each buffer gives the choice and every
    candidate's count, which is how `phobos-opt` prints the chosen layouts:

    ```
    phobos-opt k.mlir --tile-swizzle-shared=report
    remark: shared 128x32xf16: swizzle [8, 2, 4] (swizzle [8, 2, 4]: 0 excess of 80 wavefronts, 8192 B, plain: 64 excess ...)
    ```

    Before: `!phobos.smem<128x32xf16, #phobos.shared<order = [1, 0], padding = 8>>`
    After:  `!phobos.smem<128x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4]>>`

    A tensor-core operand's buffer that transposes the tile it stages (its
    contiguous axis is not the tensor's, as wgmma's K-major tf32 B) is
    written one element a lane from the default layout, mostly into a few
    banks; so is an FMA dot's A (M-contiguous), which gets the same
    treatment when its loop will be pipelined (`@pipeline`, not
    `@pipeline(1)`: tile-pipeline then stages it through registers). The
    tile's load then
    gets a layout of its own: each thread a block with 16-byte vectors along
    the tensor's axis (the loads) and along the buffer's (the stores, the
    block transposed in registers), the lanes split between the axes where
    the model counts the fewest wavefronts, then the fewest store
    instructions.

    Before: `!phobos.tile<32x256xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], ...>>`
    After:  `!phobos.tile<32x256xf32, #phobos.blocked<sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 4], order = [0, 1]>>`
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on each buffer: the layout chosen and every candidate's "
           "wavefront count">
  ];
  let statistics = [
    Statistic<"numSwizzled", "num-swizzled", "Buffers given an XOR swizzle">,
    Statistic<"numStoreLayouts", "num-store-layouts",
              "Staged tiles given a layout whose transposing stores do not conflict">
  ];
}

def TilePipeline : Pass<"tile-pipeline", "::phobos::tile::KernelOp"> {
  let summary = "software-pipelines the global-to-shared copies of dot operands";
  let description = [{
    In a kernel marked `@pipeline`, a loop whose body loads a tile from
    global memory only to stage it in shared memory for dots
    (`phobos.load` -> `phobos.local_alloc` -> `phobos.dot`) becomes an
    S-stage software pipeline: each staged operand gets a
    `phobos.local_buffer` of S slots; a prologue before the loop starts the
    asynchronous copies (`phobos.async_copy`, one `phobos.async_commit`
    group per iteration) of the first S-1 iterations; each iteration starts
    the copy of iteration i+S-1 into the slot iteration i-1 used, then
    computes on slot i % S. The last S-1 iterations copy nothing (their
    copies are disabled), which is the epilogue. The waits and barriers
    come from tile-insert-barriers, which reads the slots' `lag`s.

    S is `@pipeline(N)`, else the `stages` option, else 3, lowered to 2
    when three stages do not fit in `max-shared-bytes` (the chip's budget,
    set by the GPU pipeline). An operand of a tensor the loop writes, one
    whose offsets depend on loop-carried values, a copy that cannot move at
    least 4 bytes at a time (a 16-bit operand staged transposed) unless its
    registers can (below), and the
    remainder loop tile-split-ragged-loops leaves (it starts at
    `(ub / step) * step`, so it runs at most once) are not pipelined (a TMA
    pipeline folds that remainder instead: below).

    wgmma dots kept in flight: when every dot that reads the loop's slots is
    a `wgmma` accumulating into a loop-carried tile that only it uses (a
    GEMM's `acc += dot(a, b)`), and reads nothing else the loop writes, the
    dots get `in_flight = 1` (each returns with its group of warpgroup MMAs
    still running, so the tensor cores work across the barrier and the next
    copies) and the copies run S-2 iterations ahead instead of S-1: the slot
    an in-flight dot reads is written only two iterations later, after the
    barrier that every warpgroup passes once its next dot has retired that
    group. A `phobos.wgmma_wait` after the loop retires the last group before
    the accumulator is read. Such loops default to 4 stages (3 when 4 do
    not fit; with 2 the dots wait as before). A `swap_ab` dot's A fragments
    are registers, which ptxas (CUDA 13.0) may reuse while the group still
    reads them: such a dot in flight reads them from a register tile
    (`local_load` of B's slot, in getSwappedWgmmaFragmentLayout) that the
    loop carries to the next iteration, where `wgmma_wait ... holding` it
    retires the group before the next load (the wait after the loop holds
    the last ones). `dots-in-flight=false` keeps every dot synchronous
    (fewer registers held across the wait: the drivers compile a kernel
    that spills once more this way).

    Before:
    ```mlir
    scf.for %k = %c0 to %K step %c32 ... {
      %a = phobos.load %A[%m0, %k] ...
      %sa = phobos.local_alloc %a ...
      %d = phobos.dot %sa, %sb, %acc ...
    ```
    After (S = 3):
    ```mlir
    %bufA = phobos.local_buffer : !phobos.smem<3x128x32xf16, ...>
    phobos.async_copy %A[%m0, %c0] into %slot0 if %in0 ...   // prologue
    phobos.async_commit
    phobos.async_copy %A[%m0, %c32] into %slot1 if %in1 ...
    phobos.async_commit
    scf.for %k = %c0 to %K step %c32 ... {
      phobos.async_copy %A[%m0, %k + 64] into %slotNext if %more ...
      phobos.async_commit
      %sa = phobos.buffer_slot %bufA[%i mod 3] lag 0 ...
      %d = phobos.dot %sa, %sb, %acc ...
    ```

    TMA copies: when every staged operand is a box of a 2-D tensor
    parameter staged in an atom layout (the wgmma operands on sm_90a) whose
    rows start 16-byte aligned (the row length static, or `@aligned`), the
    copies are `phobos.tma_copy`s instead: one thread per CTA starts each,
    they arrive on a `phobos.local_barriers` of one mbarrier per stage
    (every operand of a stage on the same one), and each iteration waits on
    its slot's mbarrier (`phobos.mbarrier_wait`, parity `(i / S) mod 2`)
    instead of a `phobos.async_wait`. Ragged edges need no masks: TMA
    writes zeros outside the tensor. So a ragged remainder loop marked
    `phobos.ragged_remainder` right after the loop is folded into it when
    every operand comes through TMA and the loop's body only stages them
    and computes on them (pure ops and dots): the loop runs to the bound,
    and its last copies fill zeros past it, as the remainder's masked
    loads read. The remainder's masked step through registers (and its
    registers and shared memory beside the ring) is gone. `tma=false`
    keeps cp.async.

    In a persistent kernel's tile loop (tile-persistent) a TMA pipeline's
    mbarriers are made before the tile loop and the tile loop carries the
    ring's position (the fills of the tiles before: the parity becomes
    `((base + i) / S) mod 2`). When every operand comes through TMA and the
    copies' offsets can be computed for another tile, the prologue leaves
    the tile's body: the first tile's copies start before the tile loop,
    the next tile's after this tile's loop and wgmma wait, before its
    epilogue; the ring's buffers move before the tile loop, and the ragged
    remainder is folded as above (a remainder that cannot fold keeps the
    prologue in the tile's body). Where the slots are released by
    mbarriers (below) in such a ring, the next tile's first copies wait for
    their slots' releases too (parity from their position in the ring);
    only a release in the slot's own iteration is used across tiles.

    Drains: a load after a TMA pipeline (outside a tile loop) that stages a
    tile for dots only and reads a staged operand where the loop's load
    would read it for the iteration past the last (the same pure ops on
    the same values, with `lb + max(0, ceil((ub - lb) / step)) * step` in
    place of the induction variable: tile-defer-dots' last P @ V reads V
    there) becomes one more fill of the ring: the copies' bound moves one
    iteration further (the fill of iteration `trips`; the other operands'
    copies of that iteration read past their loop, zeros or data nobody
    reads), and the dot after the loop waits for that fill's phase (parity
    `(trips / S) mod 2`) and reads its slot, instead of loading the tile
    through registers and storing it to shared memory behind a barrier of
    the CTA. With a producer warpgroup (tile-warp-specialize) the producer
    issues that fill too. `drain-ring=false` keeps the load.

    Slots released by mbarriers: in a TMA pipeline at the kernel's top
    level (or in a persistent kernel's tile loop whose prologue left the
    tile's body, above), the pass finds the first point after which no read of an
    iteration's slots is still running: the last reader has run and the
    wgmma groups that read them are retired (a wgmma dot issues one group
    and returns with at most `in_flight` in flight; a `phobos.wgmma_wait`
    leaves `pending`; a group issued before n others is retired by a wait
    for at most n), in the same iteration (attention after
    tile-defer-dots: the `pending = 0` wait before the rescale) or in the
    next (a GEMM's dot in flight: the next dot's wait). There every warp
    arrives on the slot's "empty" mbarrier (`phobos.mbarrier_arrive`; a
    second `phobos.local_barriers` with one arrival per warp; from the next
    iteration: the previous slot, from the second iteration on). The copies
    that refill a slot move behind the iteration's first run of wgmma dots
    and wait there, every thread, for the release before theirs
    (`phobos.tma_copy ... after %empty, %parity`, parity
    `((i + ahead) / S + 1) mod 2`); tile-insert-barriers then places no
    barrier of the whole CTA in front of them. A warpgroup that is ahead
    waits only while its dots run, for the slowest warp's release an
    iteration back: warpgroups may drift apart by up to an iteration (the
    softmax of one under the other's MMAs), where a barrier holds them
    together. (A wait in thread 0 alone, before the dots, makes ptxas
    serialise the wgmma groups in flight around that divergent loop.) The
    release must come at least an iteration before the refill that waits
    for it (else the loop keeps the barrier), and every operand must come
    through TMA (a slot stored by every thread needs the barrier anyway).
    It pays only where a wgmma wait of the iteration retires the readers
    and the dots the refills follow are wide enough to hide the wait, so
    the iteration's first wgmma dot must have `release-min-columns`
    columns (128; tf32 counts twice). With synchronous dots or a GEMM's dot
    retired in the next iteration the mbarrier wait only adds latency, and
    the barrier stays, unless `release-everywhere`
    (docs/benchmarks-log.md has the A/B). `release-slots=false` keeps the
    barrier everywhere.

    Operands staged through registers: when an asynchronous copy would
    move an operand in narrower pieces than its layout's loads and stores
    do (a 4-byte operand whose buffer transposes it: wgmma's K-major tf32
    B, which tile-swizzle-shared gives 16-byte loads and stores), it is
    loaded into registers one iteration before it is stored: the prologue
    stores the first slots and loads the next tile, which the loop carries
    (an extra `iter_arg`); each iteration stores it with
    `phobos.local_store` where the copies go and, after its dots, loads the
    next one (past the loop's end, its own again: no masks the original
    load did not have; the prologue's loads are masked on the axes that
    move with the loop). The other
    operands keep their copies (TMA or cp.async); the barriers come from
    tile-insert-barriers as for copies.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Stages when the kernel's @pipeline gives none (0: choose)">,
    Option<"tma", "tma", "bool", /*default=*/"true",
           "Copy atom-layout operands through TMA (sm_90a)">,
    Option<"dotsInFlight", "dots-in-flight", "bool", /*default=*/"true",
           "Keep a GEMM loop's wgmma dots in flight across iterations "
           "(false: each dot waits for its group, which holds fewer "
           "registers; the drivers' retry for kernels that spill)">,
    Option<"releaseSlots", "release-slots", "bool", /*default=*/"true",
           "Order TMA refills after their slots' readers with per-slot "
           "mbarriers instead of a barrier of the CTA, where a wgmma wait "
           "of the iteration retires the readers">,
    Option<"releaseEverywhere", "release-everywhere", "bool",
           /*default=*/"false",
           "With release-slots: also where the readers retire at a "
           "synchronous dot or in the next iteration, or the first dot is "
           "narrow (no faster there; docs/benchmarks-log.md)">,
    Option<"releaseMinColumns", "release-min-columns", "int64_t",
           /*default=*/"128",
           "With release-slots: the columns the iteration's first wgmma dot "
           "must have (tf32 counts twice) for the release to pay">,
    Option<"foldRagged", "fold-ragged", "bool", /*default=*/"true",
           "Run a TMA pipeline's ragged remainder as one more iteration of "
           "the pipeline (TMA fills zeros past the edge) instead of a masked "
           "step through registers after it">,
    Option<"drainRing", "drain-ring", "bool", /*default=*/"true",
           "Stage a dot's operand after the loop that the loop's copies "
           "would fetch one iteration past the last (tile-defer-dots' last "
           "P @ V) as one more fill of the TMA ring, instead of a load "
           "through registers">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", /*default=*/"232448",
           "Shared memory one CTA may use (sm_90: 227 KiB)">
  ];
  let statistics = [
    Statistic<"numLoops", "num-loops", "Loops pipelined">,
    Statistic<"numDrained", "num-drained",
              "TMA pipelines whose ring also stages the operand of a dot after the loop">,
    Statistic<"numStages", "num-stages", "Stages chosen, summed over the pipelined loops">,
    Statistic<"numCopies", "num-copies", "Operands copied asynchronously">,
    Statistic<"numInFlight", "num-in-flight", "wgmma dots kept in flight across iterations">,
    Statistic<"numTma", "num-tma", "Operands copied through TMA">,
    Statistic<"numReleased", "num-released",
              "TMA pipelines whose slots are released by mbarriers">,
    Statistic<"numRegisters", "num-registers",
              "Operands staged through registers (loaded an iteration ahead)">
  ];
}

def TileTmaInvariants : Pass<"tile-tma-invariants", "::phobos::tile::KernelOp"> {
  let summary = "copies a TMA pipeline's loop-invariant dot operands through TMA";
  let description = [{
    Runs after tile-pipeline. A tile loaded once, before a loop that
    tile-pipeline made a TMA pipeline, and staged in shared memory only for
    dots in that loop (attention's Q; the backward's K and V), is copied by
    one `phobos.tma_copy` into a one-slot `phobos.local_buffer` on an
    mbarrier of its own (`phobos.local_barriers`, one arrival), instead of
    every thread's global loads and shared stores and a barrier of the
    whole CTA; the threads wait on the mbarrier (`phobos.mbarrier_wait`,
    phase 0) just before the loop, after the loop's prologue copies have
    started. With a producer warpgroup (tile-warp-specialize) the copy is
    one of the producer's. The tile must be a box TMA can copy (as for the
    pipeline's own operands: a 2-D tensor parameter or a plane of a 3-D
    one, an atom layout, 16-byte aligned rows); elements outside the tensor
    arrive as zero, as the load's masked elements did; the kernel must not
    write the tensor (the copy reads it asynchronously). Not in a loop (a
    persistent kernel's tile loop refills per tile: not handled). The GPU
    pipeline runs it only with `--experiment tma-invariants=1` until a GPU
    run has timed it.

    Before:
    ```mlir
    %q = phobos.load %Q[%bh, %row, %c0] ...
    %sq = phobos.local_alloc %q ...
    phobos.tma_copy %K[...] into %slot0 arrive %full[%c0] ...   // prologue
    scf.for ... { ... phobos.dot %sq, %k ... } {phobos.pipeline_stages = 3}
    ```
    After:
    ```mlir
    %bar = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<1xi64, ...>
    %buf = phobos.local_buffer : !phobos.smem<1x128x128xf16, ...>
    %sq = phobos.buffer_slot %buf[%c0] lag 0 ...
    phobos.tma_copy %Q[%bh, %row, %c0] into %sq arrive %bar[%c0] ...
    phobos.tma_copy %K[...] into %slot0 arrive %full[%c0] ...
    phobos.mbarrier_wait %bar[%c0], %c0 ...
    scf.for ... { ... phobos.dot %sq, %k ... }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numCopied", "num-copied", "Loop-invariant operands copied through TMA">
  ];
}

def TileAllocateShared : Pass<"tile-allocate-shared", "::phobos::tile::KernelOp"> {
  let summary = "gives every shared-memory buffer its offset";
  let description = [{
    Assigns each `phobos.local_alloc`, staged buffer and mbarrier array a
    byte offset (aligned as its layout asks: 16 bytes, 1024 for atoms):
    buffers whose live ranges (write to last reader, a whole loop when
    written outside it and read inside) do not overlap share space, first
    fit. In a kernel marked `@warp_specialize` the mbarrier arrays live
    for the whole kernel (tile-warp-specialize initialises them all at its
    start). One scratch region after the buffers is large enough for the
    largest layout conversion, transpose, reshape, cross-warp reduction or
    scan (these use shared memory only for the span of the op). Records
    `phobos.scratch_offset` and `phobos.shared_bytes` on the kernel; fails
    when the total exceeds what one CTA may use (`max-bytes`).
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"232448",
           "Shared memory one CTA may use (sm_90: 227 KiB)">
  ];
}

def TileChooseCta : Pass<"tile-choose-cta", "::phobos::tile::KernelOp"> {
  let summary = "chooses the CTA size of a kernel without @launch";
  let description = [{
    A row kernel whose source gives no `@launch` (every global load, store
    and atomic add is of one row: a `[1, N]` or 1-D tile) gets
    `max_threads` from its tiles: one thread per two 16-byte vectors of its
    largest access, rounded up to a power of two from 128 to 512 threads.
    The layouts then give each thread 16-byte vectors of the row
    (tile-assign-layouts), and a row reduction over a tile wider than a
    warp spans the warps without the author writing it. This follows
    Triton's softmax tutorial (4 warps below 2048 f32 columns, 8 below
    4096, then 16) and its layer norm at large blocks (8 warps for 4096
    f16); 4 warps is Triton's default. One vector a thread gave a long f16
    row 16 warps, each reduction crossing all of them, and was measurably
    slower (docs/benchmarks-log.md). A
    `[1, 1024]` f16 row gets 128 threads, a `[1, 4096]` f16 row 256, a
    `[1, 4096]` f32 row 512. On sm_90a, a kernel whose tensor-core dots
    all have the same M of 64 or 128 rows (and a K, N that wgmma takes)
    gets one warp per 16 rows: a warpgroup of 4 warps per 64 rows, so that
    tile-select-mma makes every dot a wgmma. A 64-row kernel (attention's
    backward at Triton's block sizes, with `num_warps=4`) at 256 threads
    could only use mma.sync. Other kernels with
    dots or warp specialization, and blocks of several rows (whose threads
    hold many elements each: an outer product's 128 x 128 f32 spills at 512
    threads), keep the 256 their layouts are made for. `@launch` keeps its
    meaning: the pass never changes a kernel that has `max_threads`. It runs
    first, before any pass reads the CTA size; the launch contract made
    before the pipeline asks the same rule (`getCompiledCtaSize`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"\"",
           "The GPU the kernel is compiled for (sm_90a gives wgmma's CTA sizes)">
  ];
  let statistics = [
    Statistic<"numChosen", "num-chosen", "Kernels given a CTA size">
  ];
}

def TileChooseOccupancy : Pass<"tile-choose-occupancy", "::phobos::tile::KernelOp"> {
  let summary = "asks for two CTAs per SM where a tensor-core kernel's accumulators allow it";
  let description = [{
    A kernel without `@launch`'s `minBlocks` whose tensor-core accumulators
    are small enough gets `min_blocks = 2` (PTX `.minnctapersm 2`): ptxas
    then keeps each thread within half of the SM's registers, and two CTAs
    share the SM, so one's ldmatrix/mma chain runs while the other waits.
    "Small enough": in every block, the mma accumulators the block's dots
    produce take at most half of the registers a thread may use at two
    CTAs per SM (65536 / (2 x CTA size), at most 255), and two CTAs' shared
    memory fits in `max-shared-bytes`. Bigger accumulators would spill
    under half the registers, which costs more than the second CTA hides,
    so they are left alone (docs/benchmarks-log.md has both cases). Kernels
    without mma dots, and kernels that give `minBlocks`, are not touched.
  }];
  let options = [
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", /*default=*/"232448",
           "Shared memory of one SM available to CTAs (sm_90: 227 KiB)">
  ];
  let statistics = [
    Statistic<"numRaised", "num-raised", "Kernels given two CTAs per SM">
  ];
}

def TileInsertBarriers : Pass<"tile-insert-barriers", "::phobos::tile::KernelOp"> {
  let summary = "places the barriers the kernel's shared-memory accesses need";
  let description = [{
    Inserts `phobos.barrier` exactly where a shared-memory access could
    race with an earlier one of another thread since the last barrier: a
    read of bytes written before (read after write), a write of bytes read
    or written before (write after read, write after write). What an op
    touches comes from its memory effects on the SharedMemory resource
    (`local_alloc` writes its buffer, `local_load` and dots on promoted
    operands read theirs; byte ranges from the allocated offsets) and, for
    the ops that exchange data through the scratch region
    (`convert_layout`, `transpose`, `reshape`, cross-warp `reduce`,
    `cumsum`), from getScratchBytes: such an op writes the scratch, waits
    at a barrier of its own and reads it, so after it only its reads are
    pending. Loops are analysed to a fixed point (an access of one
    iteration may race with the next); after a branch, what either side
    left pending is. Marks the kernel `phobos.barriers`, which
    convert-tile-to-gpu requires of kernels that use shared memory.

    Granularity: by default all of shared memory is one location (a write
    waits for every read, a read for every write, since the last barrier;
    a write need not wait for a write, since memory written twice is read
    in between or holds a dead value). `byte-ranges` compares the bytes each access touches instead,
    which places fewer barriers but lets LLVM interleave independent tile
    ops across the missing ones, which raises register pressure: a
    register-bound kernel then spills (docs/benchmarks-log.md). Barriers
    also bound how far LLVM reorders a kernel's tile ops. Multi-stage
    pipelines need the byte-range form (a write of the next stage must not
    wait for reads of the current one).

    Before: `%sa = phobos.local_alloc %a {offset = 0}` then
            `%c = phobos.dot %sa, %sb ...`
    After:  `%sa = phobos.local_alloc %a {offset = 0}`, `phobos.barrier`,
            `%c = phobos.dot %sa, %sb ...`
  }];
  let options = [
    Option<"byteRanges", "byte-ranges", "bool", /*default=*/"false",
           "Accesses conflict only where their bytes overlap">
  ];
  let statistics = [
    Statistic<"numBarriers", "num-barriers", "Barriers inserted">
  ];
}

def TileOrderGlobal : Pass<"tile-order-global", "::phobos::tile::KernelOp"> {
  let summary = "places the barriers that keep a CTA's global accesses in program order";
  let description = [{
    Inside one CTA a statement sees every earlier statement's global stores
    (docs/language.md, "The memory model"), and a statement reads all of
    its right-hand side before it stores. Where a store and another access
    of the same tensor argument (before or after it) may touch one element
    from two different threads, a `phobos.barrier` goes in front of the
    later one: `bar.sync` orders global memory among the CTA's threads as
    it does shared memory. Runs after tile-insert-barriers, whose barriers
    count.

    No barrier is needed, and none is placed, when:
    - the two accesses are of different tensor arguments (which the
      launchers keep from overlapping), or both are reads, or both are
      atomic additions;
    - on some axis their offsets differ by a known constant at least the
      extent of the slices (offsets compared as linear forms), or, for two
      iterations of a loop, the offset moves by at least the extent per
      iteration;
    - both move the same slice (offsets, point axes, tile type) in a layout
      that gives each element to exactly one thread of the CTA, so every
      thread touches only the elements it touched before.

    A layout that repeats an element in several threads (a tile smaller
    than the CTA) never counts as one owner. Of the examples only
    cluster_matmul gets a barrier (its epilogue reads and writes C in such
    a layout); an in-place shift gets two:

    Before: `phobos.store %t, %X[%c0]`, `%u = phobos.load %X[%s]`
    After:  `phobos.store %t, %X[%c0]`, `phobos.barrier`,
            `%u = phobos.load %X[%s]`
  }];
  let statistics = [
    Statistic<"numBarriers", "num-barriers", "Barriers inserted">
  ];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::phobos::tile::KernelOp"> {
  let summary = "moves a TMA pipeline's copies to a producer warpgroup";
  let description = [{
    A kernel whose TMA pipeline releases its slots through mbarriers
    (tile-pipeline's "empty" mbarriers: every refill waits for its slot's
    release, no CTA barrier orders it) gets a producer warpgroup, as
    FlashAttention 3 and CUTLASS's warp-specialised kernels do. From the
    first copy on, the kernel becomes a `phobos.warp_specialize`: its
    `producer` region holds the copies (the prologue's, and a copy of the
    pipelined loop that keeps only the refills and the index arithmetic
    they need), its `consumer` region everything else. The producer runs
    ahead of the consumers as far as the ring's releases let it, instead of
    `ahead` iterations behind the dots of the same iteration; the
    consumers' registers grow by what the producer's warps give up
    (`setmaxnreg`: `producer-registers` for the producer, the rest of the
    SM's registers shared by the consumer threads, at most 256 a thread).

    Applied to the kernels that ask for it (`@warp_specialize`; every
    kernel with `everywhere`) where every TMA copy is either before the
    pipelined loop at the kernel's top level or a released refill in it
    (tile-pipeline releases every slot it can in such kernels), and the
    refills' offsets depend only on the loop's index and values from before
    it. A kernel whose loop tile-unswitch-loops split on a kernel argument
    has such a pipeline in each branch of one top-level `scf.if`: the
    producer then takes the same branch, with each branch's copies, and
    the branches' buffers and mbarriers go first too (tile-allocate-shared
    gives such a kernel's mbarriers bytes of their own). In a persistent
    kernel (tile-persistent) whose ring tile-pipeline released across tiles
    (the next tile's first copies after the pipelined loop in the tile
    loop, released too), the producer gets its own tile loop over the same
    tiles, carrying the same scalar iteration arguments (the ring's
    position), with the refills' loop and the next tile's copies in it: it
    fills the ring for the next tile while the consumers finish this one.
    Other kernels are left alone.

    Before:
    ```mlir
    phobos.tma_copy %A[%m0, %c0] into %s0 arrive %full[%c0] if %p0 : ...
    %acc = scf.for %k = %c0 to %ub step %c64 iter_args(%a = %zero) -> ... {
      phobos.tma_copy %A[%m0, %k2] into %s arrive %full[%i2] after %empty, %parity if %more : ...
      phobos.mbarrier_wait %full[%i], %phase : ...
      %d = phobos.dot ...
      phobos.mbarrier_arrive %empty[%i] : ...
      scf.yield %d
    }
    phobos.store %acc, %C[%m0, %n0] : ...
    ```
    After:
    ```mlir
    phobos.warp_specialize producer(40) {
      phobos.tma_copy %A[%m0, %c0] into %s0 arrive %full[%c0] if %p0 : ...
      scf.for %k = %c0 to %ub step %c64 {
        phobos.tma_copy %A[%m0, %k2] into %s arrive %full[%i2] after %empty, %parity if %more : ...
      }
    } consumer(232) {
      %acc = scf.for %k = %c0 to %ub step %c64 iter_args(%a = %zero) -> ... {
        phobos.mbarrier_wait %full[%i], %phase : ...
        ...
      }
      phobos.store %acc, %C[%m0, %n0] : ...
    }
    ```
  }];
  let options = [
    Option<"producerRegisters", "producer-registers", "int64_t",
           /*default=*/"40",
           "Registers a producer thread keeps (setmaxnreg.dec; 24 to 256, a "
           "multiple of 8)">,
    Option<"everywhere", "everywhere", "bool", /*default=*/"false",
           "Specialise every kernel that fits, not only those marked "
           "@warp_specialize">
  ];
  let statistics = [
    Statistic<"numSpecialized", "num-specialized",
              "Kernels given a producer warpgroup">
  ];
}

def TilePingPong : Pass<"tile-pingpong", "::phobos::tile::KernelOp"> {
  let summary = "lets the consumer warpgroups take turns at the tensor cores";
  let description = [{
    FlashAttention 3's ping-pong schedule. In a warp-specialised kernel
    whose consumers are two or more warpgroups, a loop that issues its
    warpgroup MMAs asynchronously (`in_flight`) and then computes on other
    units (attention's softmax: exponentials, reductions) lets, without
    this pass, all warpgroups issue their MMAs together and then all wait,
    so that the tensor cores can idle during the softmax. The pass makes
    the warpgroups take turns at issuing (`phobos.warpgroup_turn`):
    each takes its turn before the iteration's first MMA and gives it to
    the next warpgroup right after issuing its last (whose `in_flight` then
    covers every MMA group of the turn, so nothing is waited for before the
    turn is given), so one warpgroup's softmax runs while the next one's
    MMAs do.

    Applied to each loop at the top level of a `phobos.warp_specialize`'s
    consumers, or in a branch of an `scf.if` there, whose MMAs are all asynchronous wgmma dots, with only slots,
    mbarrier waits, casts and scalar arithmetic between the first and the
    last (nothing there may wait for the other warpgroups), and with tile
    work other than dots after them. GEMM main loops (nothing but MMAs)
    are left alone. Where the warpgroups already drift apart on their own
    the order changes little (docs/benchmarks-log.md has the measurement).

    Before:
    ```mlir
    %r = scf.for ... {
      phobos.mbarrier_wait %full[%i], %phase : ...
      %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : ...
      %o = phobos.dot %p, %v, %acc kind(wgmma) {in_flight = 1 : i32} : ...
      %sw = phobos.wgmma_wait %s {pending = 1 : i32} : ...
      %e = phobos.exp %sw : ...
      ...
    }
    ```
    After:
    ```mlir
    phobos.warpgroup_turn start
    %r = scf.for ... {
      phobos.mbarrier_wait %full[%i], %phase : ...
      phobos.warpgroup_turn take
      %s = phobos.dot %q, %k transpose_b kind(wgmma) {in_flight = 1 : i32} : ...
      %o = phobos.dot %p, %v, %acc kind(wgmma) {in_flight = 2 : i32} : ...
      phobos.warpgroup_turn give
      %sw = phobos.wgmma_wait %s {pending = 1 : i32} : ...
      ...
    }
    phobos.warpgroup_turn finish
    ```
  }];
  let statistics = [
    Statistic<"numLoops", "num-loops",
              "Loops whose consumer warpgroups take turns">
  ];
}

def TileCheckResources : Pass<"tile-check-resources", "::phobos::tile::KernelOp"> {
  let summary = "rejects tiles too large for the registers or shared memory of the chip";
  let description = [{
    Runs first in the GPU pipeline, before any pass spends time on a kernel
    that cannot run. Each tile a thread holds in registers takes
    `ceil(elements / CTA threads)` values per thread (two for 64-bit
    elements); a tile above `max-tile-registers` (default 1020: the 255
    registers a thread has, four times over with spilling) is an error at
    the op that makes it (the tile's declaration in the source), saying how
    large the tile is and how many elements fit. The operands a dot stages
    in shared memory, and the tiles a transpose, reshape or scan passes
    through its scratch region, are checked against `max-shared-bytes`;
    the sum of the per-thread values of all tiles against
    `max-kernel-registers`, and each dot's per-thread multiply-adds
    (accumulators per thread times K) against `max-dot-steps`: both bound
    the size of the unrolled per-thread code. Nothing is changed.

    Before and after: `%t = phobos.load %x[%o] : ... -> !phobos.tile<1048576xf32>`
    fails with `tile<f32>[1048576] needs 4096 registers per thread ...`.
  }];
  let options = [
    Option<"maxTileRegisters", "max-tile-registers", "int64_t",
           /*default=*/"1020",
           "32-bit registers per thread one tile may take">,
    Option<"maxKernelRegisters", "max-kernel-registers", "int64_t",
           /*default=*/"16384",
           "32-bit registers per thread all the kernel's tiles may take together">,
    Option<"maxDotSteps", "max-dot-steps", "int64_t", /*default=*/"65536",
           "Multiply-adds per thread one dot may unroll to (accumulators per thread times K)">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t",
           /*default=*/"232448",
           "Shared memory one CTA may use (sm_90: 227 KiB)">
  ];
}

def TileAsyncStaging : Pass<"tile-async-staging", "::phobos::tile::KernelOp"> {
  let summary = "stages a loop's dot operands by asynchronous copies, not registers";
  let description = [{
    Runs after `tile-pipeline`, on what it left: in a loop (the remainder
    `tile-split-ragged-loops` leaves, a loop of a kernel without
    `@pipeline`, or with `@pipeline(1)`), a `phobos.load` whose only use is
    the `phobos.local_alloc` that stages it in shared memory reaches the
    buffer through the thread's registers, and those registers add to the
    loop's accumulators while the loads are in flight. This pass makes such
    a pair an asynchronous copy (cp.async; zero-filled outside the tensor,
    as the load's masks read) into a `phobos.local_buffer` of one slot,
    which the readers name instead. `tile-insert-barriers` commits the copy
    and waits for it before the first reader. A copy must move at least as
    many bytes an instruction as the registers would (tile-pipeline's
    rule): a buffer that transposes a tile moves one element a copy, so it
    stays where the registers store two or more at once. Tiles staged
    outside loops stay too: their registers are free again before a loop's
    accumulators need them.

    `mark-only` converts nothing; it marks a kernel that has such a pair
    (`phobos.register_staging`), so that a driver whose kernel spills knows
    that compiling it with this pass (the pipeline's `async-staging`) gives
    other code.

    Before:
    ```mlir
    scf.for %k = %full to %K step %c64 ... {
      %a = phobos.load %A[%m0, %k] ... -> !phobos.tile<128x64xf32, #blocked>
      %sa = phobos.local_alloc %a : ... -> !phobos.smem<128x64xf32, #shared>
      %d = phobos.dot %sa, %sb, %acc ...
    ```
    After:
    ```mlir
    scf.for %k = %full to %K step %c64 ... {
      %buf = phobos.local_buffer : !phobos.smem<1x128x64xf32, #shared>
      %sa = phobos.buffer_slot %buf[%c0_i32] lag 0 : ... -> !phobos.smem<128x64xf32, #shared>
      phobos.async_copy %A[%m0, %k] into %sa : ..., !phobos.tile<128x64xf32, #blocked>, ...
      %d = phobos.dot %sa, %sb, %acc ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"markOnly", "mark-only", "bool", /*default=*/"false",
           "Only mark a kernel that has a tile to convert "
           "(phobos.register_staging)">
  ];
  let statistics = [
    Statistic<"numCopies", "num-copies",
              "Register-staged tiles made asynchronous copies">
  ];
}

def TileCheckRegisters : Pass<"tile-check-registers", "::phobos::tile::KernelOp"> {
  let summary = "rejects a tile that takes all the registers a thread has";
  let description = [{
    Runs once every tile has its layout (after `tile-pipeline`). A thread
    holds `numRegisters` values of each tile in its layout (replication
    included; 16-bit elements count half a register, 64-bit ones two); it
    has `min(max-thread-registers, 65536 / (CTA threads x minBlocks))`
    registers. A tile that takes them all leaves none for its addresses,
    indices and operands: ptxas spills it by kilobytes a thread or refuses
    the kernel ("Insufficient registers"). Such a tile is an error at the
    op that first makes it (for an accumulator, its `fill`), saying how
    many registers it takes and how many a thread has; so is an mma.sync
    dot whose accumulator, two k-steps of operand fragments and an eighth
    kept for its loop exceed them. `tile-check-resources` (before layouts)
    rejects only tiles four times larger.

    Before and after: a `tile<256x256xf32, #mma>` accumulator over 256
    threads fails with `tile<f32>[256, 256] takes 256 registers per thread
    in its layout ...`; over 512 threads (128, 128 at most) as well.
  }];
  let options = [
    Option<"maxThreadRegisters", "max-thread-registers", "int64_t",
           /*default=*/"255",
           "32-bit registers a thread may use (PTX's limit)">
  ];
}

#endif // PHOBOS_DIALECT_TILE_TRANSFORMS_PASSES_TD
