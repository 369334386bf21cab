// RUN: phobos-translate --import-phobos %s | FileCheck %s

// Every scalar type as a parameter: f16, bf16, f32, f64, i32, i64, bool.
kernel scalars(a: f16, b: bf16, c: f32, d: f64, e: i32, f: i64, g: bool) {
}
// CHECK-LABEL: phobos.kernel @scalars
// Each argument keeps its source name (phobos.name), which also names its
// SSA value.
// CHECK-SAME: (%a: f16 {phobos.name = "a"}, %b: bf16 {phobos.name = "b"}, %c: f32 {phobos.name = "c"}, %d: f64 {phobos.name = "d"}, %e: i32 {phobos.name = "e"}, %f: i64 {phobos.name = "f"}, %g: i1 {phobos.name = "g"})

// Tensors of every element type; each extent is a name (bound at launch:
// '?') or a literal. phobos.dims keeps the source names.
kernel tensors(a: tensor<f16>[N],
               b: tensor<bf16>[M, N],
               c: tensor<f32>[4, K, 8],
               d: tensor<f64>[N],
               e: tensor<i32>[16],
               f: tensor<i64>[M, 2],
               g: tensor<bool>[N]) {
}
// CHECK-LABEL: phobos.kernel @tensors
// CHECK-SAME: %a: !phobos.tensor<?xf16> {phobos.dims = ["N"], phobos.name = "a"}
// CHECK-SAME: %b: !phobos.tensor<?x?xbf16> {phobos.dims = ["M", "N"], phobos.name = "b"}
// CHECK-SAME: %c: !phobos.tensor<4x?x8xf32> {phobos.dims = ["4", "K", "8"], phobos.name = "c"}
// CHECK-SAME: %d: !phobos.tensor<?xf64> {phobos.dims = ["N"], phobos.name = "d"}
// CHECK-SAME: %e: !phobos.tensor<16xi32> {phobos.dims = ["16"], phobos.name = "e"}
// CHECK-SAME: %f: !phobos.tensor<?x2xi64> {phobos.dims = ["M", "2"], phobos.name = "f"}
// CHECK-SAME: %g: !phobos.tensor<?xi1> {phobos.dims = ["N"], phobos.name = "g"}

// An @autotune name as a tensor extent is a constant of the variant.
@autotune(D in [64, 128])
kernel static_dim(q: tensor<f32>[N, D]) {
}
// CHECK-LABEL: phobos.kernel @static_dim
// CHECK-SAME: !phobos.tensor<?x64xf32> {phobos.dims = ["N", "D"]

// Tiles (locals only) of every element type, with literal extents and
// @autotune names; a scalar initialiser fills the tile.
@autotune(T in [32, 64])
kernel tiles() {
    var a: tile<f16>[T] = 0.0
    var b: tile<bf16>[2, T] = 1.0
    var c: tile<f32>[T, 4, 2] = 0.0
    var d: tile<f64>[8] = 0.0
    var e: tile<i32>[T, T] = 0
    var f: tile<i64>[1] = 0
    var g: tile<bool>[4, 1] = true
}
// CHECK-LABEL: phobos.kernel @tiles
// CHECK: phobos.fill %{{.*}} : !phobos.tile<32xf16>
// CHECK: phobos.fill %{{.*}} : !phobos.tile<2x32xbf16>
// CHECK: phobos.fill %{{.*}} : !phobos.tile<32x4x2xf32>
// CHECK: phobos.fill %{{.*}} : !phobos.tile<8xf64>
// CHECK: phobos.fill %{{.*}} : !phobos.tile<32x32xi32>
// CHECK: phobos.fill %{{.*}} : !phobos.tile<1xi64>
// CHECK: phobos.fill %{{.*}} : !phobos.tile<4x1xi1>

// Scalar locals with declared types convert their initialisers.
kernel scalar_locals(x: f32, n: i32) {
    let a: f16 = x
    let b: bf16 = x
    let c: f64 = x
    let d: i64 = n
    let e: f32 = n
    let g: bool = true
}
// CHECK-LABEL: phobos.kernel @scalar_locals
// CHECK-SAME: (%[[X:[^:]*]]: f32{{.*}}, %[[N:[^:]*]]: i32
// CHECK: arith.truncf %[[X]] : f32 to f16
// CHECK: arith.truncf %[[X]] : f32 to bf16
// CHECK: arith.extf %[[X]] : f32 to f64
// CHECK: arith.extsi %[[N]] : i32 to i64
// CHECK: arith.sitofp %[[N]] : i32 to f32
// CHECK: arith.constant true
