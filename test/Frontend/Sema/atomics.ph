// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// atomic_add is a statement: it changes a tensor and has no value.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{'atomic_add' is a statement: it adds to a tensor and has no value}}
    let x = atomic_add(a[0], 1.0)
}

// -----

// Only calls with an effect stand alone.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{the value of 'exp' is not used; only a call that changes a tensor (atomic_add) can stand alone}}
    exp(a[0 :+ 16])
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{unknown function 'atomic_sub'}}
    atomic_sub(a[0], 1.0)
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{'atomic_add' takes 2 arguments, got 1}}
    atomic_add(a[0])
}

// -----

// The target is a tensor slice or element, not a value.
kernel k(a: tensor<f32>[N]) {
    var s = 0.0
    // expected-error@+1 {{the first argument of 'atomic_add' must be a slice or an element of a tensor (T[...]), got f32}}
    atomic_add(s, 1.0)
}

// -----

kernel k(a: tensor<f16>[N]) {
    // expected-error@+1 {{'atomic_add' adds to f32, f64, i32 or i64 tensors, not f16}}
    atomic_add(a[0 :+ 16], 1.0)
}

// -----

// The value converts to the slice as a store would.
kernel k(a: tensor<f32>[N], c: tensor<i32>[N]) {
    // expected-error@+1 {{shape mismatch: cannot store a tile<f32>[32] in the slice of type tile<f32>[16]}}
    atomic_add(a[0 :+ 16], a[0 :+ 32])
    // expected-error@+1 {{cannot convert f32 to i32 implicitly for the slice; write i32(...)}}
    atomic_add(c[0], 1.5)
}
