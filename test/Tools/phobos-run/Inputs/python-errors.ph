@autotune(B in [16])
@aligned(N = B)
kernel errors(X: tensor<f32>[N], i: i32, n: i32) {
    var k = 0
    while k < n {
        k = k * 2
    }
    X[0] = X[i]
}
