// RUN: phobos-translate --import-phobos %s | FileCheck %s
// RUN: phobos-translate --import-phobos %s --kernel second | FileCheck %s --check-prefix=SECOND
// RUN: phobos-translate --import-phobos %s --kernel second --variant B=64 | FileCheck %s --check-prefix=VARIANT

// A file holds any number of kernels; each becomes a phobos.kernel, in
// order. --kernel NAME imports only that one. Empty parameter lists and
// empty bodies are fine.
kernel first() {
}

@autotune(B in [32, 64])
kernel second(x: tensor<f32>[N]) {
    x[0 :+ B] = 1.0
}

kernel third(n: i32) {}

// CHECK-LABEL: phobos.kernel @first() {
// CHECK-NEXT: phobos.return
// CHECK-LABEL: phobos.kernel @second
// CHECK: phobos.fill %{{.*}} : !phobos.tile<32xf32>
// CHECK-LABEL: phobos.kernel @third

// SECOND-NOT: @first
// SECOND: phobos.kernel @second
// SECOND-SAME: variant = {B = 32 : i64}
// SECOND-NOT: @third

// VARIANT: phobos.kernel @second
// VARIANT-SAME: variant = {B = 64 : i64}
// VARIANT: phobos.fill %{{.*}} : !phobos.tile<64xf32>
