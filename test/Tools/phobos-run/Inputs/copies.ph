// Copies an i32, an i64 and an f32 tensor, for the --init tests; c_ulps is
// c - 1 in units of f32's last place at 1 (2^-23).
kernel copies(a: tensor<i32>[N], b: tensor<i64>[N], c: tensor<f32>[N],
              a_out: tensor<i32>[N], b_out: tensor<i64>[N], c_out: tensor<f32>[N],
              c_ulps: tensor<f32>[N]) {
    a_out[0 :+ 2] = a[0 :+ 2]
    b_out[0 :+ 2] = b[0 :+ 2]
    c_out[0 :+ 2] = c[0 :+ 2]
    c_ulps[0 :+ 2] = (c[0 :+ 2] - 1.0) * 8388608.0
}
