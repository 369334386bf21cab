// f16 and bf16 tiles round after every operation, as the GPU computes them;
// f32 values round once when stored into an f16 / bf16 tensor. A float
// literal is f32 and widens a half operand; f16(...) or an integer literal
// keeps it half.
// RUN: phobos-run %s --interpret --init H=2048 --init G=256 --init X=iota --print | FileCheck %s

kernel half_arith(H: tensor<f16>[3], G: tensor<bf16>[3], X: tensor<f32>[3],
                  HalfSteps: tensor<f16>[3], F32Steps: tensor<f16>[3], BSteps: tensor<bf16>[3],
                  Square: tensor<f32>[3], Third: tensor<f32>[3], Overflow: tensor<f32>[3],
                  Store16: tensor<f16>[3], StoreB16: tensor<bf16>[3], Scaled: tensor<f16>[3]) {
    let i = arange(3)
    let zero = X[0 :+ 3] * 0.0                 // f32 zeros, not folded
    let h = H[0 :+ 3]                          // 2048 in f16
    let one = f16(1.0)
    // 2048 + 1 is a tie between 2048 and 2050 in f16: to even, 2048, each time.
    HalfSteps[0 :+ 3] = h + one + one + 1      // an i32 literal keeps f16
    // In f32 (the literal 1.0 widens h) the sum is 2051, rounded once: 2052.
    F32Steps[0 :+ 3] = h + 1.0 + 1.0 + 1.0
    // bf16 has 8 significant bits: 256 + 1 is a tie, to 256, each time.
    BSteps[0 :+ 3] = G[0 :+ 3] + bf16(1.0) + bf16(1.0)
    // (1 + 2^-10)^2 - 1: f16 rounds the square to 1 + 2^-9; f32 keeps
    // 1 + 2^-9 + 2^-20; bf16 holds only 1 to begin with.
    let a = zero + 1.0009765625
    Square[0 :+ 3] = where(i == 0, f32(f16(a) * f16(a) - one),
                     where(i == 1, f32(bf16(a) * bf16(a) - bf16(1.0)), a * a - 1.0))
    // 1 / 3 in f16, bf16 and f32.
    let t = zero + 3.0
    Third[0 :+ 3] = where(i == 0, f32(one / f16(t)),
                    where(i == 1, f32(bf16(1.0) / bf16(t)), 1.0 / t))
    // 300 * 300 overflows f16 (largest 65504), not bf16 or f32.
    let s = zero + 300.0
    Overflow[0 :+ 3] = where(i == 0, f32(f16(s) * f16(s)),
                       where(i == 1, f32(bf16(s) * bf16(s)), s * s))
    // f32 results stored into half tensors: 0.1, 1e-7 (an f16 subnormal,
    // 2 units of 2^-24), 70000 (past f16's range, inside bf16's).
    let v = where(i == 0, zero + 0.1, where(i == 1, zero + 1.0e-7, zero + 70000.0))
    Store16[0 :+ 3] = v
    StoreB16[0 :+ 3] = v
    // An f16 tensor times an f32 scalar computes in f32 and rounds back:
    // 2048 * 1.0009765625 = 2050 exactly.
    Scaled[0 :+ 3] = H[0 :+ 3]
    Scaled[0 :+ 3] *= 1.0009765625
}

// CHECK: HalfSteps = [2048, 2048, 2048]
// CHECK-NEXT: F32Steps = [2052, 2052, 2052]
// CHECK-NEXT: BSteps = [256, 256, 256]
// CHECK-NEXT: Square = [0.00195312, 0, 0.00195408]
// CHECK-NEXT: Third = [0.333252, 0.333984, 0.333333]
// CHECK-NEXT: Overflow = [inf, 90112, 90000]
// CHECK-NEXT: Store16 = [0.0999756, 1.19209e-07, inf]
// CHECK-NEXT: StoreB16 = [0.100098, 1.00117e-07, 70144]
// CHECK-NEXT: Scaled = [2050, 2050, 2050]
