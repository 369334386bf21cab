// --scalar gives an integer parameter its exact value, beyond 2^53 too.
// RUN: phobos-run %s --interpret --scalar v=9007199254740993 --scalar w=-9223372036854775807 --print | FileCheck %s
// The ends of the range are in range (2^63 - 1 is no double: it used to be
// checked as 2^63 and refused).
// RUN: phobos-run %s --interpret --scalar v=9223372036854775807 --scalar w=-9223372036854775808 --print | FileCheck %s --check-prefix=ENDS

kernel scalar_int64(D: tensor<i64>[2], v: i64, w: i64) {
    // Differences, so that the printing of large values does not matter.
    D[0] = v - 9007199254740992
    D[1] = w + 9223372036854775806
}

// CHECK: D = [1, -1]
// ENDS: D = [9214364837600034815, -2]
