// RUN: phobos-translate --import-phobos %s | FileCheck %s
// RUN: phobos-translate --import-phobos %s --variant P=2 | FileCheck %s --check-prefix=ON
// RUN: not phobos-translate --import-phobos %s --variant P=3 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sed -e 's/@persistent(P - 1)/@persistent(1, 2)/' %s > %t.ph
// RUN: not phobos-translate --import-phobos %t.ph 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: sed -e 's/@persistent(P - 1)/@persistent/' %s > %t.bare.ph
// RUN: phobos-translate --import-phobos %t.bare.ph | FileCheck %s --check-prefix=ON

// @persistent(P - 1) makes the persistent grid a tuning choice (@autotune
// values start at 1): the flag is resolved, and checked (1 or 0), in each
// variant; the kernel records `persistent` only where it is 1.
@autotune(P in [1, 2, 3])
@persistent(P - 1)
kernel scale(x: tensor<f32>[N]) {
    let i = ctx.block.x * 128
    x[i :+ 128] = 2.0 * x[i :+ 128]
}
// CHECK-LABEL: phobos.kernel @scale
// CHECK-NOT: persistent
// CHECK: phobos.return
// ON-LABEL: phobos.kernel @scale
// ON-SAME: persistent

// BAD: persistent.ph:13:15: error: @persistent takes 1 (CTAs loop over the tiles) or 0 (one CTA per tile), got 2
// TWO: error: @persistent takes at most one argument (1 or 0), got 2
