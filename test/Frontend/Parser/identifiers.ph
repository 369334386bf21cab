// RUN: phobos-translate --import-phobos %s | FileCheck %s

// Only `kernel let var if else for in while true false` are keywords. The
// names of built-ins, types and `range`, `ctx`, `tensor`, `tile` are ordinary
// identifiers recognised by position, so parameters may use them.
kernel names(range: i32, dot: f32, tensor: tensor<f32>[tile], exp: f32, ctx: i32, f32: f32) {
    var acc = dot
    // `range` after `in` is the loop form; `range` as a value is the parameter.
    for i in range(0, range) {
        acc += exp * dot
    }
    // A call of `exp` is the built-in even though a parameter is named exp.
    let t = exp(tensor[0 :+ 4])
    // `ctx` alone is the parameter; `ctx.block.x` is the context value.
    tensor[0] = acc + f32(ctx) + f32(ctx.block.x) + f32
}
// CHECK-LABEL: phobos.kernel @names
// CHECK-SAME: %[[RANGE:[^:]*]]: i32{{.*}}, %[[DOT:[^:]*]]: f32{{.*}}, %[[T:[^:]*]]: !phobos.tensor<?xf32> {phobos.dims = ["tile"]{{.*}}, %[[EXP:[^:]*]]: f32{{.*}}, %[[CTX:[^:]*]]: i32{{.*}}, %[[F32:[^:]*]]: f32
// CHECK: %[[LOOP:.*]] = scf.for %{{.*}} = %{{.*}} to %[[RANGE]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[DOT]]) -> (f32)
// CHECK-NEXT: %[[PROD:.*]] = arith.mulf %[[EXP]], %[[DOT]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[PROD]] : f32
// CHECK: %[[TT:.*]] = phobos.load %[[T]]
// CHECK-NEXT: phobos.exp %[[TT]] : !phobos.tile<4xf32>
// CHECK-NEXT: %[[CF:.*]] = arith.sitofp %[[CTX]] : i32 to f32
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[LOOP]], %[[CF]] : f32
// CHECK-NEXT: %[[BX:.*]] = phobos.block_id x
// CHECK-NEXT: %[[BF:.*]] = arith.sitofp %[[BX]] : i32 to f32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[BF]] : f32
// CHECK-NEXT: %[[S3:.*]] = arith.addf %[[S2]], %[[F32]] : f32
// CHECK: phobos.store_scalar %[[S3]], %[[T]]

// Identifiers may contain digits and underscores.
kernel _under_score2(a_1: i32, B2b: tensor<i32>[N_2]) {
    B2b[0] = a_1
}
// CHECK-LABEL: phobos.kernel @_under_score2
// CHECK-SAME: {phobos.dims = ["N_2"]
