// A tile no thread can hold: tile-check-resources rejects it in the
// pipeline (test/Tools/phobos-viz/errors.test).
@launch(256)
kernel too_big(X: tensor<f32>[N]) {
    X[0 :+ 1048576] = X[0 :+ 1048576] + 1.0
}
