// --print prints i64 elements exactly, not through a double: INT64_MAX,
// INT64_MIN and 2^53 + 1.
// RUN: phobos-run %s --interpret --scalar one=1 --print | FileCheck %s

kernel print_int64(I: tensor<i64>[4], one: i64) {
    let max = 9223372036854775806 + one
    I[0] = max
    I[1] = -max - one
    I[2] = 9007199254740992 + one
    I[3] = -9007199254740992 - one
}

// CHECK: I = [9223372036854775807, -9223372036854775808, 9007199254740993, -9007199254740993]
