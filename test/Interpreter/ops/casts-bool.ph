// bool(x) is x != 0 for floats: true for NaN and for infinities, false for
// -0, on tiles (phobos.cast) as on scalars (arith.cmpf une).
// RUN: phobos-run %s --interpret --init X=iota --scalar z=0 --print | FileCheck %s

kernel casts_bool(X: tensor<f32>[4], Tile: tensor<bool>[4], Half: tensor<bool>[4],
                  Scalar: tensor<bool>[4], z: f32) {
    let i = arange(4)
    let zero = X[0 :+ 4] * 0.0
    let nan = zero / zero
    let v = where(i == 0, zero, where(i == 1, -zero, where(i == 2, 1.0 / zero, nan)))
    Tile[0 :+ 4] = bool(v)
    Half[0 :+ 4] = bool(f16(v))
    Scalar[0] = bool(z)
    Scalar[1] = bool(-z)
    Scalar[2] = bool(1.0 / z)
    Scalar[3] = bool(z / z)
}

// CHECK: Tile = [0, 0, 1, 1]
// CHECK-NEXT: Half = [0, 0, 1, 1]
// CHECK-NEXT: Scalar = [0, 0, 1, 1]
