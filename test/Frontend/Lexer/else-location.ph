// RUN: not phobos-translate --import-phobos %s 2>&1 | FileCheck %s

// The newline after '}' ends the 'if' statement, so an 'else' on the next
// line is an error, reported at the 'else' with the line and a caret.
kernel k(c: bool, o: tensor<i32>[N]) {
    if c {
        o[0] = 1
    }
    else {
// CHECK: else-location.ph:[[@LINE-1]]:5: error: 'else' must be on the same line as the '}' that closes the 'if'
// CHECK-NEXT: {{^}}    else {
// CHECK-NEXT: {{^}}    ^
        o[0] = 2
    }
}

// Only the first syntax error is reported.
// CHECK-NOT: error:
