// A CTA that runs more than --step-limit operations is stopped, and the error
// points at the innermost loop running at the time (the default limit is
// 2^27 steps per CTA; every op and every loop iteration counts). The
// limit is per CTA: a finite loop in each of many CTAs is fine.
// RUN: not phobos-run %s --interpret --kernel never_ends --scalar n=3 --step-limit 1000 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: not phobos-run %s --interpret --kernel nested --step-limit 500 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not phobos-run %s --interpret --kernel long_for --step-limit 100 2>&1 | FileCheck %s --check-prefix=FOR
// RUN: phobos-run %s --interpret --kernel per_cta --grid 16 --step-limit 200 --print | FileCheck %s --check-prefix=PERCTA

// i stays 0: the loop never ends.
kernel never_ends(Out: tensor<i32>[1], n: i32) {
    var i = 0
    while i < n {
    // WHILE: {{.*}}.ph:[[@LINE-1]]:5: error: the kernel did not finish within 1000 steps per CTA; this loop may never end; --step-limit N raises the budget (in CTA 0, 0, 0)
    // WHILE-NEXT: {{^}}    while i < n {
        i = i * 2
    }
    Out[0] = i
}

// The inner loop is the one reported.
kernel nested(Out: tensor<i32>[1]) {
    var s = 0
    for i in range(0, 10) {
        var j = 1
        while j > 0 {
        // NESTED: {{.*}}.ph:[[@LINE-1]]:9: error: the kernel did not finish within 500 steps per CTA; this loop may never end; --step-limit N raises the budget (in CTA 0, 0, 0)
            j = j + 1
        }
        s += j
    }
    Out[0] = s
}

// A for loop with a huge trip count looks the same.
kernel long_for(Out: tensor<i32>[1]) {
    var s = 0
    for i in range(0, 2000000000) { s += i % 7 }
    // FOR: {{.*}}.ph:[[@LINE-1]]:5: error: the kernel did not finish within 100 steps per CTA; this loop may never end; --step-limit N raises the budget (in CTA 0, 0, 0)
    Out[0] = s
}

kernel per_cta(Out: tensor<i32>[16]) {
    var s = 0
    for i in range(0, 10) { s += i }
    Out[ctx.block.x] = s + ctx.block.x
}

// PERCTA: Out = [45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60]

// An empty loop body still counts one step per iteration: 2^63 - 1
// iterations are stopped at the limit, not run.
// RUN: not phobos-run %s --interpret --kernel empty_loop --step-limit 1000 2>&1 | FileCheck %s --check-prefix=EMPTY
kernel empty_loop(Out: tensor<i32>[1]) {
    for i in range(0, 9223372036854775807) {
    }
    // EMPTY: {{.*}}.ph:[[@LINE-2]]:5: error: the kernel did not finish within 1000 steps per CTA; this loop may never end; --step-limit N raises the budget (in CTA 0, 0, 0)
    Out[0] = 1
}

// The budget of the whole launch (--launch-step-limit, default 2^28) counts
// the steps of every CTA; a grid of more CTAs than the budget fails at once.
// RUN: not phobos-run %s --interpret --kernel per_cta --grid 16 --launch-step-limit 100 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: not phobos-run %s --interpret --kernel per_cta --grid 2000000000 2>&1 | FileCheck %s --check-prefix=GRID
// LAUNCH: error: the launch did not finish within 100 steps over all CTAs; --launch-step-limit N raises the budget (or use smaller dims or a smaller grid)
// GRID: error: the grid has 2000000000 CTAs, more than the 268435456 steps a launch may run; use a smaller grid (or --launch-step-limit N to raise the budget)

// A tile op costs steps in proportion to its elements (one more per 16),
// so that a spin loop over a large tile meets the default limit in about as
// long as a scalar one (counted as one step each, a spin over a 1024 x 1024
// tile took ~20 hours). Ten adds of a 64 x 64 tile are 257 steps each: past
// 1000 (they were about 50 steps).
// RUN: not phobos-run %s --interpret --kernel big_tiles --step-limit 1000 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: phobos-run %s --interpret --kernel small_tiles --step-limit 1000 --print | FileCheck %s --check-prefix=SMALL
kernel big_tiles(Out: tensor<f32>[64, 64]) {
    var t: tile<f32>[64, 64] = 0.0
    for i in range(0, 10) { t = t + 1.0 }
    // TILES: {{.*}}.ph:[[@LINE-1]]:5: error: the kernel did not finish within 1000 steps per CTA; this loop may never end; --step-limit N raises the budget (in CTA 0, 0, 0)
    Out[:, :] = t
}

// Ten adds of a 16 x 16 tile: 17 steps each, well within 1000.
kernel small_tiles(Out: tensor<f32>[16, 16]) {
    var t: tile<f32>[16, 16] = 0.0
    for i in range(0, 10) { t = t + 1.0 }
    Out[:, :] = t
}
// SMALL: Out = [10, 10, 10,
