// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

kernel k(o: tensor<i64>[N]) {
    // expected-error@+1 {{integer literal '9223372036854775808' does not fit in 64 bits}}
    o[0] = 9223372036854775808
}

// -----

kernel k(o: tensor<i64>[N]) {
    // expected-error@+1 {{integer literal '99999999999999999999999999' does not fit in 64 bits}}
    o[0] = 99999999999999999999999999
}

// -----

// The error points at the 'e' that has no digits after it.
kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{expected digits in the exponent of a float literal}}
    o[0] = 1.0e
}

// -----

kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{expected digits in the exponent of a float literal}}
    o[0] = 2E-
}

// -----

// Beyond the range of a double: a lexical error.
kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{float literal '1.5e400' is out of range}}
    o[0] = 1.5e400
}

// -----

// A double but not an f32: float literals are f32.
kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{float literal does not fit in f32}}
    o[0] = 1.0e39
}

// -----

// A number runs into a letter: hex, suffixes and names that start with a
// digit are not Phobos.
kernel k(o: tensor<i32>[N]) {
    // expected-error@+1 {{unexpected character after a number}}
    o[0] = 0x10
}

// -----

kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{unexpected character after a number}}
    o[0] = 1.5f
}

// -----

// '1.' needs a digit after the '.'.
kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{unexpected character after a number}}
    o[0] = 1.
}

// -----

kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{unexpected character after a number}}
    o[0] = 1.2.3
}

// -----

// '.5' is not a literal: '.' only follows 'ctx'.
kernel k(o: tensor<f32>[N]) {
    // expected-error@+1 {{expected an expression, got '.'}}
    o[0] = .5
}
