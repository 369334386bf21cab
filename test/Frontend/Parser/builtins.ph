// RUN: phobos-translate --import-phobos %s | FileCheck %s

// The built-in functions on tiles.
kernel builtins(A: tensor<f32>[64, 32], B: tensor<f32>[32, 16], C: tensor<f32>[16, 32], I: tensor<i32>[64, 32]) {
    let a = A[:, :]
    let b = B[:, :]
    let c = C[:, :]
    let i = I[:, :]
    // Matrix products: dot contracts a's last axis with b's first; dot_t
    // contracts both last axes. The result is f32.
    let d = dot(a, b)
    let dt = dot_t(a, c)
    // Element-wise math.
    let e = exp(a)
    let e2 = exp2(a)
    let l = log(a)
    let l2 = log2(a)
    let s = sqrt(a)
    let rs = rsqrt(a)
    let th = tanh(a)
    let ab = abs(a)
    let ai = abs(i)
    // Reductions keep the reduced axis with extent 1: rows over axis 1,
    // columns over axis 0.
    let r1 = rowmax(a)
    let r2 = rowsum(a)
    let r3 = rowmin(a)
    let c1 = colmax(a)
    let c2 = colsum(a)
    let c3 = colmin(i)
    // Element-wise max and min, broadcasting.
    let mx = tmax(a, r1)
    let mn = tmin(a, 0.0)
    // Structure.
    let cs = cumsum(a)
    let tl = tril(a)
    let tr = transpose(a)
    let wh = where(a > 0.0, a, 0.0)
    let ar = arange(32)
    let rh = reshape(a, 32, 2, 32)
}
// CHECK-LABEL: phobos.kernel @builtins
// CHECK: %[[A:.*]] = phobos.load {{.*}} -> !phobos.tile<64x32xf32>
// CHECK: %[[B:.*]] = phobos.load {{.*}} -> !phobos.tile<32x16xf32>
// CHECK: %[[C:.*]] = phobos.load {{.*}} -> !phobos.tile<16x32xf32>
// CHECK: %[[I:.*]] = phobos.load {{.*}} -> !phobos.tile<64x32xi32>
// CHECK-NEXT: phobos.dot %[[A]], %[[B]] : !phobos.tile<64x32xf32>, !phobos.tile<32x16xf32> -> !phobos.tile<64x16xf32>
// CHECK-NEXT: phobos.dot %[[A]], %[[C]] {{.*}}transpose_b{{.*}} : !phobos.tile<64x32xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x16xf32>
// CHECK-NEXT: phobos.exp %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.exp2 %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.log %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.log2 %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.sqrt %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.rsqrt %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.tanh %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.abs %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.abs %[[I]] : !phobos.tile<64x32xi32>
// CHECK-NEXT: %[[R1:.*]] = phobos.reduce max %[[A]] along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
// CHECK-NEXT: phobos.reduce sum %[[A]] along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
// CHECK-NEXT: phobos.reduce min %[[A]] along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
// CHECK-NEXT: phobos.reduce max %[[A]] along 0 : !phobos.tile<64x32xf32> -> !phobos.tile<1x32xf32>
// CHECK-NEXT: phobos.reduce sum %[[A]] along 0 : !phobos.tile<64x32xf32> -> !phobos.tile<1x32xf32>
// CHECK-NEXT: phobos.reduce min %[[I]] along 0 : !phobos.tile<64x32xi32> -> !phobos.tile<1x32xi32>
// CHECK-NEXT: phobos.max %[[A]], %[[R1]] : !phobos.tile<64x32xf32>, !phobos.tile<64x1xf32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: phobos.min %[[A]], %[[ZERO]] : !phobos.tile<64x32xf32>, f32
// CHECK-NEXT: phobos.cumsum %[[A]] along 0 : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.tril %[[A]] : !phobos.tile<64x32xf32>
// CHECK-NEXT: phobos.transpose %[[A]] : !phobos.tile<64x32xf32> -> !phobos.tile<32x64xf32>
// CHECK: %[[GT:.*]] = phobos.cmp gt, %[[A]], %{{.*}} : !phobos.tile<64x32xf32>, f32
// CHECK: phobos.select %[[GT]], %[[A]], %{{.*}} : !phobos.tile<64x32xi1>, !phobos.tile<64x32xf32>, f32
// CHECK-NEXT: phobos.arange : !phobos.tile<32xi32>
// CHECK-NEXT: phobos.reshape %[[A]] : !phobos.tile<64x32xf32> -> !phobos.tile<32x2x32xf32>

// Arguments of mixed element types are promoted first: dot of f16 and f32
// computes on f32; tmax and where convert to the common type. An @autotune
// name is a valid arange length and reshape extent.
@autotune(T in [8, 16])
kernel promotion(H: tensor<f16>[16, 16], F: tensor<f32>[16, 16], x: f32) {
    let h = H[:, :]
    let f = F[:, :]
    let d = dot(h, f)
    let dh = dot(h, h)
    let m = tmax(h, x)
    let w = where(f > x, h, 1)
    let ar = arange(T * 2)
    let rh = reshape(f, 256 / T, T)
}
// CHECK-LABEL: phobos.kernel @promotion
// CHECK: %[[H:.*]] = phobos.load {{.*}} -> !phobos.tile<16x16xf16>
// CHECK: %[[F:.*]] = phobos.load {{.*}} -> !phobos.tile<16x16xf32>
// CHECK-NEXT: %[[HW:.*]] = phobos.cast %[[H]] : !phobos.tile<16x16xf16> to !phobos.tile<16x16xf32>
// CHECK-NEXT: phobos.dot %[[HW]], %[[F]] : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
// f16 x f16 stays f16 on the operands and accumulates to f32.
// CHECK-NEXT: phobos.dot %[[H]], %[[H]] : !phobos.tile<16x16xf16>, !phobos.tile<16x16xf16> -> !phobos.tile<16x16xf32>
// CHECK-NEXT: %[[HM:.*]] = phobos.cast %[[H]] : !phobos.tile<16x16xf16> to !phobos.tile<16x16xf32>
// CHECK-NEXT: phobos.max %[[HM]], %{{.*}} : !phobos.tile<16x16xf32>, f32
// where(f > x, h, 1): an f16 tile and an int literal promote to f16.
// CHECK: %[[CMP:.*]] = phobos.cmp gt, %[[F]]
// CHECK: %[[ONE:.*]] = arith.sitofp %{{.*}} : i32 to f16
// CHECK-NEXT: phobos.select %[[CMP]], %[[H]], %[[ONE]] : !phobos.tile<16x16xi1>, !phobos.tile<16x16xf16>, f16
// CHECK-NEXT: phobos.arange : !phobos.tile<16xi32>
// CHECK-NEXT: phobos.reshape %[[F]] : !phobos.tile<16x16xf32> -> !phobos.tile<32x8xf32>

// Under @tensorcore, dot on f32 operands carries the rounding precision;
// dot on f16 operands does not need one.
@tensorcore(tf32)
kernel precision(F: tensor<f32>[16, 16], H: tensor<f16>[16, 16]) {
    let f = F[:, :]
    let h = H[:, :]
    let d = dot(f, f)
    let dt = dot_t(f, f)
    let dh = dot(h, h)
}
// CHECK-LABEL: phobos.kernel @precision
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} precision(tf32) transpose_b : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
// CHECK: phobos.dot %{{.*}}, %{{.*}} : !phobos.tile<16x16xf16>, !phobos.tile<16x16xf16> -> !phobos.tile<16x16xf32>
