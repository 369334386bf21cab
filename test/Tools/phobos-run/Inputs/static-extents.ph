// Literal extents that are each within i32 but whose product overflows
// int64: the run must say so, not wrap to a small buffer.
kernel static_extents(x: tensor<f32>[2147483647, 2147483647, 2147483647], y: tensor<f32>[N]) {
    y[0 :+ 16] = x[0, 0, 0 :+ 16]
}
