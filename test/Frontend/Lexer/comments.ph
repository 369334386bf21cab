// RUN: phobos-translate --import-phobos %s | FileCheck %s
// RUN: printf 'kernel k(o: tensor<i32>[N]) {\n  o[0] = 7 // no newline at the end\n} // last' | phobos-translate --import-phobos - | FileCheck %s --check-prefix=EOF

// Comments run from '//' to the end of the line, anywhere: between
// attributes, inside parameter lists, after a statement (where the newline
// still ends it) and on lines of their own.

// A comment before everything.
@autotune(B in [4]) // after an attribute
// between attributes
@launch(64)
kernel comments(o: tensor<i32>[N], // after a parameter
                // on its own line inside the parameter list
                n: i32) { // after '{'
    // A '/' that is not followed by '/' is a division.
    let a = n / 2 // the statement still ends at this newline
    let b = a //no space
    o[0] = b // o[1] = 99 is commented out
    //o[2] = 98
    ////// many slashes
} // after the body
// CHECK-LABEL: phobos.kernel @comments
// CHECK-SAME: max_threads = 64 : i32
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[A:.*]] = arith.divsi %{{.*}}, %[[TWO]] : i32
// CHECK: phobos.store_scalar %[[A]]
// CHECK-NOT: 99
// CHECK-NOT: 98
// CHECK: phobos.return

// A comment on the last line of the input, without a newline after it, ends
// the statement before it.
// EOF-LABEL: phobos.kernel @k
// EOF: %[[SEVEN:.*]] = arith.constant 7 : i32
// EOF: phobos.store_scalar %[[SEVEN]]
