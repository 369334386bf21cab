// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Unknown names.
kernel k(n: i32) {
    // expected-error@+1 {{unknown name 'm'}}
    let x = n + m
}

// -----

kernel k(o: tensor<i32>[N]) {
    // expected-error@+1 {{unknown name 'later'}}
    o[0] = later
    let later = 1
}

// -----

// `ctx` needs a field and an axis.
kernel k(o: tensor<i32>[N]) {
    // expected-error@+1 {{unknown name 'ctx'; write ctx.block.x or ctx.grid.x}}
    o[0] = ctx
}

// -----

// A let in a block is gone after the block.
kernel k(o: tensor<i32>[N], c: bool) {
    if c {
        let inner = 1
    }
    // expected-error@+1 {{unknown name 'inner'}}
    o[0] = inner
}

// -----

// The loop variable is gone after the loop.
kernel k(o: tensor<i32>[N]) {
    for i in range(0, 4) {
    }
    // expected-error@+1 {{unknown name 'i'}}
    o[0] = i
}

// -----

// Several unknown names are each reported.
kernel k(o: tensor<i32>[N]) {
    // expected-error@+1 {{unknown name 'p'}}
    let a = p
    // expected-error@+1 {{unknown name 'q'}}
    o[0] = q
}

// -----

// Redeclarations: a name is declared once in a kernel, in any scope (no
// shadowing).
kernel k() {
    let x = 1
    // expected-error@+1 {{'x' is already declared at 6:9}}
    let x = 2
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{'n' is already declared at 3:10}}
    var n = 2
}

// -----

kernel k(c: bool) {
    let y = 1
    if c {
        // expected-error@+1 {{'y' is already declared at 4:9}}
        let y = 2
    }
}

// -----

kernel k() {
    let i = 0
    // expected-error@+1 {{'i' is already declared at 4:9}}
    for i in range(0, 4) {
    }
}

// -----

kernel k() {
    for i in range(0, 4) {
        // expected-error@+1 {{'i' is already declared at 4:9}}
        let i = 1
    }
}

// -----

// A dim bound at launch is a name too.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{'N' is already declared at 4:25}}
    let N = 4
}

// -----

@autotune(B in [16, 32])
kernel k() {
    // expected-error@+1 {{'B' is already declared at 3:11}}
    let B = 4
}

// -----

// Sibling blocks may reuse a name.
kernel k(o: tensor<i32>[N], c: bool) {
    if c {
        let t = 1
        o[0] = t
    } else {
        let t = 2
        o[0] = t
    }
    for i in range(0, 2) {
    }
    for i in range(0, 2) {
    }
    // expected-error@+1 {{unknown name 'z'}}
    o[1] = z
}

// -----

// Parameters.
// expected-error@+1 {{parameter 'a' is already declared at 5:10}}
kernel k(a: i32, a: f32) {
}

// -----

@autotune(B in [16])
// expected-error@+1 {{parameter 'B' has the name of an @autotune dimension}}
kernel k(B: i32) {
}

// -----

// expected-error@+1 {{dimension 'n' has the name of a parameter declared at 4:10}}
kernel k(n: i32, a: tensor<f32>[n]) {
}

// -----

// expected-error@+1 {{dimension 'n' has the name of a parameter declared at 4:29}}
kernel k(a: tensor<f32>[n], n: i32) {
}

// -----

// A tensor's dims may repeat and may be shared between tensors.
kernel k(a: tensor<f32>[N, N], b: tensor<f32>[N], o: tensor<i32>[M]) {
    // expected-error@+1 {{unknown name 'q'}}
    o[0] = q
}

// -----

// Kernel names are unique in a file.
kernel twice() {
}
// expected-error@+1 {{kernel 'twice' is already defined at 4:8}}
kernel twice() {
}
