// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Unknown functions.
kernel k(n: i32) {
    // expected-error@+1 {{unknown function 'foo'}}
    let x = foo(n)
}

// -----

// `range` is only the loop form.
kernel k() {
    // expected-error@+1 {{unknown function 'range'}}
    let r = range(0, 4)
}

// -----

// A parameter is not a function.
kernel k(f: f32) {
    // expected-error@+1 {{unknown function 'f'}}
    let x = f(1.0)
}

// -----

// Wrong numbers of arguments.
kernel k(x: f32) {
    // expected-error@+1 {{'exp' takes 1 argument, got 2}}
    let a = exp(x, x)
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{'sqrt' takes 1 argument, got 0}}
    let a = sqrt()
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{'tmax' takes 2 arguments, got 1}}
    let a = tmax(x)
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{'tmin' takes 2 arguments, got 3}}
    let a = tmin(x, x, x)
}

// -----

kernel k(x: f32, p: bool) {
    // expected-error@+1 {{'where' takes 3 arguments, got 2}}
    let a = where(p, x)
}

// -----

kernel k(a: tensor<f32>[4, 4]) {
    // expected-error@+1 {{'dot' takes 2 arguments, got 1}}
    let d = dot(a[:, :])
}

// -----

kernel k(a: tensor<f32>[4, 4]) {
    // expected-error@+1 {{'rowsum' takes 1 argument, got 2}}
    let d = rowsum(a[:, :], 1)
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{'f16' takes 1 argument, got 2}}
    let a = f16(x, x)
}

// -----

kernel k() {
    // expected-error@+1 {{'arange' takes 1 argument, got 2}}
    let a = arange(0, 16)
}

// -----

kernel k(a: tensor<f32>[4, 4]) {
    // expected-error@+1 {{'reshape' takes a tile and its new extents, reshape(t, d0, d1, ...)}}
    let r = reshape(a[:, :])
}

// -----

kernel k() {
    // expected-error@+1 {{'program_id' takes 1 argument, got 0}}
    let p = program_id()
}

// -----

// Wrong argument types, reported at the argument.
kernel k(n: i32) {
    // expected-error@+1 {{'exp' needs a float argument, got i32; convert with f32(...)}}
    let a = exp(n)
}

// -----

kernel k(a: tensor<i32>[4, 4]) {
    // expected-error@+1 {{'log' needs a float argument, got tile<i32>[4, 4]; convert with f32(...)}}
    let l = log(a[:, :])
}

// -----

kernel k(a: tensor<i32>[4, 4]) {
    // expected-error@+1 {{'rsqrt' needs a float argument, got tile<i32>[4, 4]; convert with f32(...)}}
    let l = rsqrt(a[:, :])
}

// -----

kernel k(a: tensor<i32>[4, 4]) {
    // expected-error@+1 {{'tanh' needs a float argument, got tile<i32>[4, 4]; convert with f32(...)}}
    let t = tanh(a[:, :])
}

// -----

kernel k(a: tensor<f32>[4, 4]) {
    // expected-error@+1 {{'tanh' takes 1 argument, got 2}}
    let t = tanh(a[:, :], 1.0)
}

// -----

kernel k(a: tensor<i32>[4, 4]) {
    // expected-error@+1 {{'exp2' needs a float argument, got tile<i32>[4, 4]; convert with f32(...)}}
    let t = exp2(a[:, :])
}

// -----

kernel k(a: tensor<f32>[4, 4]) {
    // expected-error@+1 {{'log2' takes 1 argument, got 0}}
    let t = log2()
}

// -----

kernel k(p: bool) {
    // expected-error@+1 {{'abs' needs a number, got bool}}
    let a = abs(p)
}

// -----

kernel k(p: bool, x: f32) {
    // expected-error@+1 {{'tmax' needs a number, got bool}}
    let a = tmax(x, p)
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{the condition of 'where' must be bool, got f32}}
    let a = where(x, x, x)
}

// -----

kernel k(p: bool, x: f32) {
    // expected-error@+1 {{'where' cannot mix f32 and bool}}
    let a = where(p, x, p)
}

// -----

kernel k(a: tensor<f32>[4, 8], c: tensor<bool>[8, 4]) {
    // expected-error@+1 {{shapes do not broadcast in 'where': tile<bool>[8, 4], tile<f32>[4, 8], f32}}
    let w = where(c[:, :], a[:, :], 0.0)
}

// -----

kernel k(a: tensor<f32>[16]) {
    // expected-error@+1 {{'dot' needs a rank-2 tile, got tile<f32>[16]}}
    let d = dot(a[:], a[:])
}

// -----

kernel k(a: tensor<f32>[4, 4], x: f32) {
    // expected-error@+1 {{'dot_t' needs a rank-2 tile, got f32}}
    let d = dot_t(a[:, :], x)
}

// -----

kernel k(a: tensor<i32>[4, 4]) {
    // expected-error@+1 {{'dot' needs a float argument, got tile<i32>[4, 4]; convert with f32(...)}}
    let d = dot(a[:, :], a[:, :])
}

// -----

kernel k(a: tensor<f32>[4, 4, 4]) {
    // expected-error@+1 {{'rowmax' needs a rank-2 tile, got tile<f32>[4, 4, 4]}}
    let r = rowmax(a[:, :, :])
}

// -----

kernel k(a: tensor<bool>[4, 4]) {
    // expected-error@+1 {{'colsum' needs a number, got tile<bool>[4, 4]}}
    let r = colsum(a[:, :])
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{'cumsum' needs a tile, got f32}}
    let r = cumsum(x)
}

// -----

kernel k(a: tensor<bool>[4]) {
    // expected-error@+1 {{'cumsum' needs a number, got tile<bool>[4]}}
    let r = cumsum(a[:])
}

// -----

kernel k(a: tensor<f32>[4]) {
    // expected-error@+1 {{'tril' needs a rank-2 tile, got tile<f32>[4]}}
    let r = tril(a[:])
}

// -----

kernel k(a: tensor<f32>[4]) {
    // expected-error@+1 {{'transpose' needs a rank-2 tile, got tile<f32>[4]}}
    let r = transpose(a[:])
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{the arange length must be a compile-time constant (literals and @autotune names)}}
    let r = arange(n)
}

// -----

kernel k() {
    // expected-error@+1 {{the arange length must be positive, got 0}}
    let r = arange(0)
}

// -----

kernel k(x: f32) {
    // expected-error@+1 {{'reshape' needs a tile, got f32}}
    let r = reshape(x, 1)
}

// -----

kernel k(a: tensor<f32>[4, 4], n: i32) {
    // expected-error@+1 {{a reshape extent must be a compile-time constant (literals and @autotune names)}}
    let r = reshape(a[:, :], n)
}

// -----

kernel k(a: tensor<f32>[4, 4]) {
    // expected-error@+1 {{cannot reshape tile<f32>[4, 4] to [8, 4]: the element counts differ}}
    let r = reshape(a[:, :], 8, 4)
}

// -----

kernel k() {
    // expected-error@+1 {{program_id takes the axis 0, 1 or 2}}
    let p = program_id(3)
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{program_id takes the axis 0, 1 or 2}}
    let p = program_id(n)
}

// -----

// A whole tensor is not a value: slice it.
kernel k(a: tensor<f32>[4, 4]) {
    // expected-error@+1 {{an argument cannot be a whole tensor; slice it (T[...])}}
    let e = exp(a)
}
