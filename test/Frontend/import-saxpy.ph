// RUN: phobos-translate --import-phobos %s | FileCheck %s

// CHECK-LABEL: phobos.kernel @saxpy
// CHECK-SAME: variant = {BLOCK = 16 : i64}
// CHECK: %[[PID:.*]] = phobos.block_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[PID]]
// CHECK: phobos.load %{{.*}}[%[[BASE]]] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
// CHECK: phobos.store
@autotune(BLOCK in [16, 8192])
kernel saxpy(x: tensor<f32>[N], y: tensor<f32>[N], out: tensor<f32>[N], alpha: f32) {
    let base = ctx.block.x * BLOCK
    out[base :+ BLOCK] = alpha * x[base :+ BLOCK] + y[base :+ BLOCK]
}
