// RUN: phobos-translate --import-phobos %s | FileCheck %s
// RUN: phobos-translate --import-phobos %s --variant WS=2 | FileCheck %s --check-prefix=ON
// RUN: not phobos-translate --import-phobos %s --variant WS=3 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sed -e 's/@warp_specialize(WS - 1)/@warp_specialize(1, 2)/' %s > %t.ph
// RUN: not phobos-translate --import-phobos %t.ph 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: sed -e 's/@warp_specialize(WS - 1)/@warp_specialize/' %s > %t.bare.ph
// RUN: phobos-translate --import-phobos %t.bare.ph | FileCheck %s --check-prefix=ON

// @warp_specialize(WS - 1) makes the producer warpgroup a tuning choice
// (@autotune values start at 1): the flag is resolved, and checked (1 or
// 0), in each variant; the kernel records `warp_specialize` only where it
// is 1.
@autotune(WS in [1, 2, 3])
@pipeline
@warp_specialize(WS - 1)
kernel copies(o: tensor<i32>[N]) {
    o[0] = WS
}
// CHECK-LABEL: phobos.kernel @copies
// CHECK-NOT: warp_specialize
// CHECK: phobos.return
// ON-LABEL: phobos.kernel @copies
// ON-SAME: warp_specialize

// BAD: warp-specialize.ph:15:21: error: @warp_specialize takes 1 (a producer warpgroup) or 0 (none), got 2
// TWO: error: @warp_specialize takes at most one argument (1 or 0), got 2
