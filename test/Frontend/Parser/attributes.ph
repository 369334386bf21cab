// RUN: phobos-translate --import-phobos %s 2>/dev/null | FileCheck %s

// The three forms of an attribute argument: `NAME in [values]` (@autotune,
// @cluster), `NAME = expr` (@aligned) and a positional expression (@launch,
// @tensorcore). Attributes without parentheses (@pipeline) take none.

// @autotune: two values a < b are doubling steps from a to b; b < a are the
// two values themselves; equal values are one; three or more are a list. The
// first value of each name is the default variant.
@autotune(A in [16, 256], B in [256, 16], C in [8, 8], D in [3, 1, 2])
@cluster(A in [1024, 4096])
@launch(128, 2, 64)
@pipeline
@tensorcore(bf16)
@aligned(M = A, N = 2 * B)
kernel forms(X: tensor<f32>[M, N]) {
}

// CHECK-LABEL: phobos.kernel @forms
// CHECK-SAME: aligned = {M = 16 : i64, N = 512 : i64}
// CHECK-SAME: autotune = [#phobos.tune_dim<"A", [16, 32, 64, 128, 256]>, #phobos.tune_dim<"B", [256, 16]>, #phobos.tune_dim<"C", [8]>, #phobos.tune_dim<"D", [3, 1, 2]>]
// CHECK-SAME: cluster = [#phobos.tune_dim<"A", [1024, 2048, 4096]>]
// CHECK-SAME: max_regs = 64 : i32
// CHECK-SAME: max_threads = 128 : i32
// CHECK-SAME: min_blocks = 2 : i32
// CHECK-SAME: pipeline
// CHECK-SAME: tensorcore = "bf16"
// CHECK-SAME: variant = {A = 16 : i64, B = 256 : i64, C = 8 : i64, D = 3 : i64}

// @tensorcore without arguments rounds f32 to f16. @launch with one argument
// sets the CTA size only.
@tensorcore
kernel tc_default(X: tensor<f32>[M, N]) {
}
// CHECK-LABEL: phobos.kernel @tc_default
// CHECK-SAME: attributes {tensorcore = "f16"}

@tensorcore(tf32)
@launch(1024)
kernel tc_tf32() {
}
// CHECK-LABEL: phobos.kernel @tc_tf32()
// CHECK-SAME: attributes {max_threads = 1024 : i32, tensorcore = "tf32"}

// Empty parentheses on @tensorcore and @pipeline are the same as none.
@tensorcore()
@pipeline()
kernel empty_parens() {
}
// CHECK-LABEL: phobos.kernel @empty_parens()
// CHECK-SAME: attributes {pipeline, tensorcore = "f16"}

// An unknown attribute is parsed with any of the three forms, kept by name
// and otherwise ignored (with a warning; see Sema/attributes.ph).
@mystery(1, x = 2 + 3, y in [3, 4])
@other
kernel unknown() {
}
// CHECK-LABEL: phobos.kernel @unknown()
// CHECK-SAME: unknown_attributes = ["mystery", "other"]

// Attribute arguments may span lines after ',' and '['.
@autotune(P in [
              4, 8, 2],
          Q in [1, 1024])
kernel multiline() {
}
// CHECK-LABEL: phobos.kernel @multiline()
// CHECK-SAME: autotune = [#phobos.tune_dim<"P", [4, 8, 2]>, #phobos.tune_dim<"Q", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]>]
// CHECK-SAME: variant = {P = 4 : i64, Q = 1 : i64}

// No attributes: none on the op.
kernel plain() {
}
// CHECK-LABEL: phobos.kernel @plain() {
