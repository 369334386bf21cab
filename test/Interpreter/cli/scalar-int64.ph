// --scalar gives an integer parameter its exact value, beyond 2^53 too.
// RUN: phobos-run %s --interpret --scalar v=9007199254740993 --scalar w=-9223372036854775807 --print | FileCheck %s

kernel scalar_int64(D: tensor<i64>[2], v: i64, w: i64) {
    // Differences, so that the printing of large values does not matter.
    D[0] = v - 9007199254740992
    D[1] = w + 9223372036854775806
}

// CHECK: D = [1, -1]
