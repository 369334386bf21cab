// RUN: phobos-translate --import-phobos %s -verify-diagnostics -split-input-file

// The parser stops at the first syntax error and says what it expected.

// expected-error@+1 {{expected 'kernel' or an attribute, got identifier 'kernal'}}
kernal k() {
}

// -----

@pipeline
// expected-error@+1 {{expected 'kernel' after the attributes, got identifier 'k'}}
k() {
}

// -----

// expected-error@+1 {{expected an attribute name after '@', got '('}}
@(X in [1])
kernel k() {
}

// -----

// expected-error@+1 {{expected an integer in the list of values, got identifier 'a'}}
@autotune(X in [a, 2])
kernel k() {
}

// -----

// expected-error@+1 {{expected an integer in the list of values, got float literal '1.5'}}
@autotune(X in [1.5])
kernel k() {
}

// -----

// expected-error@+1 {{expected '[' to open the list of values, got integer literal '1'}}
@autotune(X in 1, 2)
kernel k() {
}

// -----

// expected-error@+1 {{expected ']' to close the list of values, got ')'}}
@autotune(X in [1, 2)
kernel k() {
}

// -----

// expected-error@+1 {{expected ',' or ')' in the arguments of @launch, got integer literal '2'}}
@launch(256 2)
kernel k() {
}

// -----

// expected-error@+1 {{expected the kernel's name, got '('}}
kernel (a: i32) {
}

// -----

// expected-error@+1 {{expected '(' to open the parameter list, got '{'}}
kernel k {
}

// -----

// expected-error@+1 {{expected a parameter name, got integer literal '1'}}
kernel k(1: i32) {
}

// -----

// expected-error@+1 {{expected ':' and a type after the parameter name, got identifier 'i32'}}
kernel k(a i32) {
}

// -----

// expected-error@+1 {{expected ',' or ')' in the parameter list, got identifier 'b'}}
kernel k(a: i32 b: i32) {
}

// -----

// expected-error@+1 {{unknown type 'int'; expected a scalar type, tensor<T>[...] or tile<T>[...]}}
kernel k(a: int) {
}

// -----

// expected-error@+1 {{unknown element type 'float'; expected f16, bf16, f32, f64, i32, i64 or bool}}
kernel k(a: tensor<float>[N]) {
}

// -----

// expected-error@+1 {{expected '<' after 'tensor', got '['}}
kernel k(a: tensor[N]) {
}

// -----

// expected-error@+1 {{expected '>' after the element type, got ','}}
kernel k(a: tensor<f32, 2>[N]) {
}

// -----

// expected-error@+1 {{expected '[' to open the tensor's extents, got ')'}}
kernel k(a: tensor<f32>) {
}

// -----

// expected-error@+1 {{expected an extent (a name or an integer), got ']'}}
kernel k(a: tensor<f32>[]) {
}

// -----

// '?' is not even a token.
// expected-error@+1 {{unexpected character '?'}}
kernel k(a: tensor<f32>[?]) {
}

// -----

// expected-error@+1 {{expected ']' to close the extents, got '+'}}
kernel k(a: tensor<f32>[N + 1]) {
}

// -----

kernel k() {
    // expected-error@+1 {{expected '[' to open the tile's extents, got '='}}
    var t: tile<f32> = 0.0
}

// -----

kernel k() {
    // expected-error@+1 {{expected a name after 'let', got '='}}
    let = 1
}

// -----

kernel k() {
    // expected-error@+1 {{expected a name after 'var', got 'if'}}
    var if = 1
}

// -----

kernel k() {
    // expected-error@+1 {{expected '=' and an initial value, got end of line}}
    let x
}

// -----

kernel k() {
    // expected-error@+1 {{expected '=' and an initial value, got '+='}}
    var x += 1
}

// -----

kernel k() {
    // expected-error@+1 {{expected a loop variable after 'for', got 'in'}}
    for in range(0, 4) {
    }
}

// -----

kernel k() {
    // expected-error@+1 {{expected 'in' after the loop variable, got '='}}
    for i = 0 {
    }
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{expected 'range(...)' after 'in', got identifier 'n'}}
    for i in n {
    }
}

// -----

kernel k() {
    // expected-error@+1 {{expected '(' after 'range', got '['}}
    for i in range[0, 4] {
    }
}

// -----

kernel k() {
    // expected-error@+1 {{range takes 2 or 3 arguments (start, end[, step]), got 1}}
    for i in range(4) {
    }
}

// -----

kernel k() {
    // expected-error@+1 {{range takes 2 or 3 arguments (start, end[, step]), got 4}}
    for i in range(0, 4, 1, 1) {
    }
}

// -----

kernel k() {
    // expected-error@+1 {{expected ',' or ')' in range(...), got ';'}}
    for i in range(0; 4) {
    }
}

// -----

kernel k(c: bool) {
    // expected-error@+1 {{expected '{' to open the body of the 'if', got identifier 'x'}}
    if c x = 1
}

// -----

kernel k(c: bool) {
    // expected-error@+1 {{expected an expression, got '{'}}
    while {
    }
}

// -----

// A statement that is not let/var/for/while/if must be an assignment.
kernel k(n: i32) {
    // expected-error@+1 {{expected '=' or a compound assignment; a statement is let, var, for, while, if, an assignment or a call of atomic_add, got '+'}}
    n + 1
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{expected '=' or a compound assignment; a statement is let, var, for, while, if, an assignment or a call of atomic_add, got '=='}}
    n == 1
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{expected '=' or a compound assignment; a statement is let, var, for, while, if, an assignment or a call of atomic_add, got end of line}}
    n
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{expected '=' or a compound assignment; a statement is let, var, for, while, if, an assignment or a call of atomic_add, got '%'}}
    n %= 2
}

// -----

// Only a name or a tensor slice can be assigned to.
kernel k(n: i32) {
    // expected-error@+1 {{only a name or a tensor slice can be assigned to}}
    exp(n) = 1
}

// -----

kernel k() {
    // expected-error@+1 {{only a name or a tensor slice can be assigned to}}
    ctx.block.x = 1
}

// -----

kernel k() {
    // expected-error@+1 {{only a name or a tensor slice can be assigned to}}
    1 = 2
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{expected an expression, got ')'}}
    let x = n * )
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{expected ')' to close the '(' at 5:13, got ']'}}
    let x = (n + 1]
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{expected ',' or ')' in the arguments of 'tmax', got integer literal '2'}}
    let x = tmax(n 2)
}

// -----

// Only names can be called.
kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{only built-in functions can be called}}
    let x = a[0 :+ 4](1)
}

// -----

kernel k(n: i32) {
    // expected-error@+1 {{'.' only follows 'ctx' (ctx.block.x, ctx.grid.y)}}
    let x = n.x
}

// -----

kernel k() {
    // expected-error@+1 {{expected 'block' or 'grid' after 'ctx.', got identifier 'thread'}}
    let x = ctx.thread.x
}

// -----

kernel k() {
    // expected-error@+1 {{expected '.' and an axis after 'ctx.block', got end of line}}
    let x = ctx.block
}

// -----

kernel k() {
    // expected-error@+1 {{expected 'x', 'y' or 'z' after 'ctx.grid.', got identifier 'w'}}
    let x = ctx.grid.w
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{expected ']' to close the subscripts, got ';'}}
    let x = a[0; 1]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{expected an expression, got ']'}}
    let x = a[]
}

// -----

kernel k(a: tensor<f32>[N]) {
    // expected-error@+1 {{expected an expression, got ','}}
    let x = a[, 1]
}
