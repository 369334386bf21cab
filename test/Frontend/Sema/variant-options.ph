// Errors in what --variant and --kernel ask for.

// RUN: not phobos-translate --import-phobos %s --variant T=48 2>&1 | FileCheck %s --check-prefix=NOTIN -DFILE=%s
// NOTIN: [[FILE]]:[[# @LINE + 27]]:11: error: --variant T=48 is not in the search space of 'T' (16, 32, 64)
// RUN: not phobos-translate --import-phobos %s --variant U=5 2>&1 | FileCheck %s --check-prefix=NOTIN-U -DFILE=%s
// NOTIN-U: [[FILE]]:[[# @LINE + 25]]:26: error: --variant U=5 is not in the search space of 'U' (3, 1, 2)

// A name no imported kernel declares: reported at the start of the file.
// RUN: not phobos-translate --import-phobos %s --variant Q=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN -DFILE=%s
// UNKNOWN: [[FILE]]:1:1: error: --variant names 'Q', which no imported kernel declares in @autotune
// RUN: not phobos-translate --import-phobos %s --kernel b --variant T=32 2>&1 | FileCheck %s --check-prefix=UNKNOWN-T -DFILE=%s
// UNKNOWN-T: [[FILE]]:1:1: error: --variant names 'T', which no imported kernel declares in @autotune

// Malformed specs.
// RUN: not phobos-translate --import-phobos %s --variant T 2>&1 | FileCheck %s --check-prefix=SPEC
// SPEC: error: --variant: expected NAME=VALUE with an integer VALUE, got 'T'
// RUN: not phobos-translate --import-phobos %s --variant T=x 2>&1 | FileCheck %s --check-prefix=SPEC-VALUE
// SPEC-VALUE: error: --variant: expected NAME=VALUE with an integer VALUE, got 'T=x'
// RUN: not phobos-translate --import-phobos %s --variant T=16,T=32 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: --variant: 'T' is given twice

// --kernel names a kernel the file does not define.
// RUN: not phobos-translate --import-phobos %s --kernel nope 2>&1 | FileCheck %s --check-prefix=KERNEL -DFILE=%s
// KERNEL: [[FILE]]:1:1: error: --kernel: no kernel named 'nope'; the file defines a, b

// Valid: several names, in any order, a value from an explicit list.
// RUN: phobos-translate --import-phobos %s --variant U=2,T=64 | FileCheck %s --check-prefix=OK
// OK: phobos.kernel @a
// OK-SAME: variant = {T = 64 : i64, U = 2 : i64}

@autotune(T in [16, 64], U in [3, 1, 2])
kernel a(o: tensor<i32>[N]) {
}
kernel b(o: tensor<i32>[N]) {
}
