// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// An unknown attribute is a warning, and the kernel still imports.
// expected-warning@+1 {{unknown attribute '@mystery' (kept on the kernel, not interpreted)}}
@mystery(1, x = 2)
kernel k() {
}

// -----

// Each attribute once.
@launch(128)
// expected-error@+1 {{@launch is given twice (first at 4:2)}}
@launch(256)
kernel k() {
}

// -----

@autotune(A in [1])
@pipeline
// expected-error@+1 {{@autotune is given twice (first at 3:2)}}
@autotune(B in [2])
kernel k() {
}

// -----

// @autotune: NAME in [values], each name once, values in 1..2^31-1.
// expected-error@+1 {{@autotune needs at least one 'NAME in [values]'}}
@autotune
kernel k() {
}

// -----

// expected-error@+1 {{@autotune needs at least one 'NAME in [values]'}}
@autotune()
kernel k() {
}

// -----

// expected-error@+1 {{@autotune arguments have the form 'NAME in [a, b, ...]'}}
@autotune(B = 16)
kernel k() {
}

// -----

// expected-error@+1 {{@autotune arguments have the form 'NAME in [a, b, ...]'}}
@autotune(A in [16], 32)
kernel k() {
}

// -----

// expected-error@+1 {{'A' appears twice in @autotune}}
@autotune(A in [16], A in [32])
kernel k() {
}

// -----

// expected-error@+1 {{search values must be between 1 and 2147483647, got 0}}
@autotune(A in [0, 16])
kernel k() {
}

// -----

// expected-error@+1 {{search values must be between 1 and 2147483647, got -8}}
@autotune(A in [16, -8])
kernel k() {
}

// -----

// expected-error@+1 {{search values must be between 1 and 2147483647, got 4294967296}}
@autotune(A in [1, 4294967296])
kernel k() {
}

// -----

// An explicit list (three or more values) names each value once.
// expected-error@+1 {{value 8 appears twice in the list of 'A'}}
@autotune(A in [8, 16, 8])
kernel k() {
}

// -----

// Two bounds that doubling does not reach: a warning, the search stops below.
// expected-warning@+1 {{doubling from 16 does not reach 100; the search for 'A' ends at 64}}
@autotune(A in [16, 100])
kernel k() {
}

// -----

// @cluster: the same form; every name must be an @autotune name.
@autotune(TM in [64])
// expected-error@+1 {{@cluster dimension 'TN' is not an @autotune name}}
@cluster(TM in [1024], TN in [1024])
kernel k() {
}

// -----

// expected-error@+1 {{@cluster dimension 'TM' is not an @autotune name}}
@cluster(TM in [1024])
kernel k() {
}

// -----

// expected-error@+1 {{@cluster arguments have the form 'NAME in [a, b, ...]'}}
@cluster(4096)
kernel k() {
}

// -----

// @launch(maxThreads[, minBlocks[, maxRegs]]).
// expected-error@+1 {{maxThreads must be a positive multiple of 32 up to 1024, got 100}}
@launch(100)
kernel k() {
}

// -----

// expected-error@+1 {{maxThreads must be a positive multiple of 32 up to 1024, got 2048}}
@launch(2048)
kernel k() {
}

// -----

// expected-error@+1 {{maxThreads must be a positive multiple of 32 up to 1024, got 0}}
@launch(0)
kernel k() {
}

// -----

// expected-error@+1 {{@launch takes 1 to 3 arguments (maxThreads, minBlocks, maxRegs), got 0}}
@launch
kernel k() {
}

// -----

// expected-error@+1 {{@launch takes 1 to 3 arguments (maxThreads, minBlocks, maxRegs), got 4}}
@launch(256, 1, 32, 4)
kernel k() {
}

// -----

// A thread count of @autotune names is checked in each variant.
@autotune(T in [100])
// expected-error@+1 {{maxThreads must be a positive multiple of 32 up to 1024, got 100}}
@launch(T)
kernel k() {
}

// -----

// expected-error@+1 {{maxThreads must be an integer literal}}
@launch(threads = 256)
kernel k() {
}

// -----

// expected-error@+1 {{minBlocks must be between 1 and 64, got 0}}
@launch(256, 0)
kernel k() {
}

// -----

// expected-error@+1 {{minBlocks must be between 1 and 64, got 65}}
@launch(256, 65)
kernel k() {
}

// -----

// expected-error@+1 {{minBlocks must be an integer literal}}
@launch(256, 1.5)
kernel k() {
}

// -----

// expected-error@+1 {{maxRegs must be between 16 and 255, got 300}}
@launch(256, 1, 300)
kernel k() {
}

// -----

// expected-error@+1 {{maxRegs must be between 16 and 255, got 8}}
@launch(256, 1, 8)
kernel k() {
}

// -----

// @pipeline takes at most one argument, the number of stages, 1 to 8.
// expected-error@+1 {{@pipeline's number of stages must be between 1 and 8, got 9}}
@pipeline(9)
kernel k() {
}

// -----

// expected-error@+1 {{@pipeline takes at most one argument (the number of stages), got 2}}
@pipeline(2, 3)
kernel k() {
}

// -----

// A stage count that is not a literal must be a constant of the variant.
// expected-error@+1 {{the @pipeline stage count must be a compile-time constant}}
@pipeline(S)
kernel k() {
}

// -----

// expected-error@+1 {{the number of stages must be an integer literal}}
@pipeline(stages = 3)
kernel k() {
}

// -----

// @tensorcore takes f16, tf32 or bf16 (or nothing, for f16).
// expected-error@+1 {{@tensorcore takes one of f16, tf32 or bf16 (the precision f32 operands are rounded to)}}
@tensorcore(fp8)
kernel k() {
}

// -----

// expected-error@+1 {{@tensorcore takes one of f16, tf32 or bf16 (the precision f32 operands are rounded to)}}
@tensorcore(f16, tf32)
kernel k() {
}

// -----

// expected-error@+1 {{@tensorcore takes one of f16, tf32 or bf16 (the precision f32 operands are rounded to)}}
@tensorcore(16)
kernel k() {
}

// -----

// @aligned(DIM = MULTIPLE): a tensor dim name, a positive compile-time
// multiple, each dim once.
// expected-error@+1 {{@aligned needs at least one 'DIM = MULTIPLE'}}
@aligned
kernel k(a: tensor<f32>[M]) {
}

// -----

// expected-error@+1 {{@aligned arguments have the form 'DIM = MULTIPLE'}}
@aligned(M)
kernel k(a: tensor<f32>[M]) {
}

// -----

// expected-error@+1 {{@aligned arguments have the form 'DIM = MULTIPLE'}}
@aligned(M in [16])
kernel k(a: tensor<f32>[M]) {
}

// -----

// expected-error@+1 {{@aligned names 'K', which is not a tensor dimension}}
@aligned(K = 16)
kernel k(a: tensor<f32>[M]) {
}

// -----

// A scalar parameter is not a tensor dimension.
// expected-error@+1 {{@aligned names 'n', which is not a tensor dimension}}
@aligned(n = 16)
kernel k(a: tensor<f32>[M], n: i32) {
}

// -----

// expected-error@+1 {{'M' appears twice in @aligned}}
@aligned(M = 16, M = 32)
kernel k(a: tensor<f32>[M]) {
}

// -----

// expected-error@+1 {{an @aligned multiple must be a compile-time constant (literals and @autotune names)}}
@aligned(M = n)
kernel k(a: tensor<f32>[M], n: i32) {
}

// -----

// expected-error@+1 {{an @aligned multiple must be positive, got 0}}
@aligned(M = 0)
kernel k(a: tensor<f32>[M]) {
}

// -----

// A dim that is a constant of the variant (an @autotune name used as an
// extent) either keeps an @aligned promise or never can.
@autotune(D in [64, 128])
// expected-error@+1 {{@aligned promises that 'D' is a multiple of 48, but it is 64}}
@aligned(D = 48)
kernel k(a: tensor<f32>[N, D]) {
}

// -----

// A thread count that is not a literal must be a constant of the variant.
// expected-error@+1 {{the @launch thread count must be a compile-time constant}}
@launch(N)
kernel k(o: tensor<i32>[N]) {
}
