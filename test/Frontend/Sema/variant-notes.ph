// RUN: phobos-translate --import-phobos %s --variant X=2,Y=4 -verify-diagnostics

// With --variant, every error in a kernel checked in a non-default variant
// carries the note, and only in that kernel: the note of one kernel does not
// leak into the errors of the next.

@autotune(X in [1, 2])
kernel a(o: tensor<i32>[N]) {
    // expected-error@+2 {{unknown name 'q'}}
    // expected-note@+1 {{in variant X=2}}
    o[0] = q
}

// No @autotune: no variant, no note, for Sema errors ...
kernel b(o: tensor<i32>[N]) {
    // expected-error@+1 {{unknown name 'r'}}
    o[0] = r
}

@autotune(X in [1, 2])
kernel c(o: tensor<i32>[N]) {
    o[0] = X
}

// ... nor for errors in the attributes, which come before the variant is
// bound.
// expected-error@+1 {{maxThreads must be a positive multiple of 32 up to 1024, got 100}}
@launch(100)
kernel d(o: tensor<i32>[N]) {
}

// Y=4 is the default value of Y: the default variant, no note.
@autotune(Y in [4, 8])
kernel e(o: tensor<i32>[N]) {
    // expected-error@+1 {{unknown name 's'}}
    o[0] = s
}
