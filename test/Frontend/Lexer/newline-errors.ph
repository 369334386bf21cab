// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// Where Go's newline rule ends a statement too early, the error says so at
// the right place.

// 'else' on the line after '}': the '}' ended the 'if' statement.
kernel k(c: bool) {
    if c {
    }
    // expected-error@+1 {{'else' must be on the same line as the '}' that closes the 'if'}}
    else {
    }
}

// -----

// A comment or a blank line between '}' and 'else' does not help.
kernel k(c: bool) {
    if c {
    } // the statement ends here

    // expected-error@+1 {{'else' must be on the same line as the '}' that closes the 'if'}}
    else {
    }
}

// -----

// After an explicit ';' an 'else' starts a new statement.
kernel k(c: bool) {
    // expected-error@+2 {{'else' must follow the '}' of an 'if' on the same line}}
    if c {
    }; else {
    }
}

// -----

kernel k(c: bool) {
    if c {
    // expected-error@+1 {{expected '{' or 'if' after 'else', got 'while'}}
    } else while c {
    }
}

// -----

// A line that ends in an operand ends the statement, so an operator cannot
// start the next line.
kernel k(n: i32) {
    let x = n
    // expected-error@+1 {{expected an expression, got '+'}}
        + 1
}

// -----

// Inside parentheses too: the error points at the end of the line and names
// the '(' (line:col within this split).
kernel k(n: i32) {
    // expected-error@+1 {{expected ')' to close the '(' at 7:13; a line that ends in an operand ends the statement}}
    let x = (n
        + 1)
}

// -----

// The last parameter cannot be followed by a newline before ')'; end the
// line with ',' instead.
// expected-error@+1 {{expected ',' or ')' in the parameter list, got end of line}}
kernel k(a: tensor<f32>[N], n: i32
         ) {
}

// -----

// '{' must be on the line of the kernel's ')'.
// expected-error@+1 {{expected '{' to open the kernel's body, got end of line}}
kernel k(n: i32)
{
}

// -----

// ... and on the line of the loop header.
kernel k(n: i32) {
    // expected-error@+1 {{expected '{' to open the loop body, got end of line}}
    for i in range(0, n)
    {
    }
}

// -----

kernel k(c: bool) {
    // expected-error@+1 {{expected '{' to open the body of the 'if', got end of line}}
    if c
    {
    }
}

// -----

kernel k(c: bool) {
    // expected-error@+1 {{expected '{' to open the loop body, got end of line}}
    while c
    {
    }
}

// -----

// A subscript list cannot break after an operand.
kernel k(a: tensor<f32>[N], n: i32) {
    // expected-error@+1 {{expected ']' to close the subscripts, got end of line}}
    a[n
      :+ 4] = 1.0
}

// -----

// Two statements on one line need a ';'.
kernel k(n: i32) {
    // expected-error@+1 {{expected a new line or ';' after the statement, got 'let'}}
    let x = 1 let y = 2
}

// -----

// Two kernels on one line need a newline between them.
kernel a(n: i32) {
// expected-error@+1 {{expected a new line after the kernel's body, got 'kernel'}}
} kernel b(n: i32) {
}
