// RUN: phobos-translate --import-phobos %s | FileCheck %s

// Statements end at a newline after an identifier, a literal, true/false,
// ')', ']' or '}' (Go's rule); a line that ends in an operator or ','
// continues on the next line.

// A parameter list may span lines when each line ends in ','; a trailing
// ',' before ')' is allowed. An attribute on its own line is fine.
@autotune(BLOCK in [16,
                    64])
@pipeline
kernel terminators(x: tensor<f32>[N],
                   y: tensor<f32>[N],
                   n: i32,
                   ) {
    // An operator at the end of a line continues the expression.
    let a = n +
        1
    // ',' at the end of a line continues a call's argument list.
    let m = tmin(a,
                 n)
    // ... and a subscript list.
    let t = x[a :+
              BLOCK]
    // A newline right after '=' continues the statement.
    let u =
        t * 2.0
    y[a :+ BLOCK] = u
}

// CHECK-LABEL: phobos.kernel @terminators
// CHECK-SAME: %[[X:[^:]*]]: !phobos.tensor<?xf32>
// CHECK-SAME: %[[Y:[^:]*]]: !phobos.tensor<?xf32>
// CHECK-SAME: %[[N:[^:]*]]: i32
// CHECK-SAME: pipeline
// CHECK-SAME: variant = {BLOCK = 16 : i64}
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[A:.*]] = arith.addi %[[N]], %[[ONE]] : i32
// CHECK: %[[M:.*]] = arith.minsi %[[A]], %[[N]] : i32
// CHECK: %[[T:.*]] = phobos.load %[[X]][%[[A]]] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
// CHECK: %[[U:.*]] = phobos.mul %[[T]], %{{.*}} : !phobos.tile<16xf32>, f32
// CHECK: phobos.store %[[U]], %[[Y]][%[[A]]] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
// CHECK: phobos.return

// '}' followed by 'else' on the same line continues the 'if'; a newline after
// '}' ends the statement.
kernel branches(o: tensor<i32>[N], c: bool) {
    var v = 0
    if c {
        v = 1
    } else if !c {
        v = 2
    } else {
        v = 3
    }
    o[0] = v
}

// CHECK-LABEL: phobos.kernel @branches
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: } else {
// CHECK: %[[INNER:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: } else {
// CHECK: scf.yield %[[INNER]] : i32
// CHECK: phobos.store_scalar %[[R]]

// ';' ends a statement explicitly, so several fit on one line; empty
// statements (';;') and a ';' before '}' are fine.
kernel semicolons(o: tensor<i32>[N]) {
    let a = 1; let b = 2;; o[0] = a + b;
    o[1] = a; o[2] = b
}

// CHECK-LABEL: phobos.kernel @semicolons
// CHECK: %[[SA:.*]] = arith.constant 1 : i32
// CHECK: %[[SB:.*]] = arith.constant 2 : i32
// CHECK: %[[SUM:.*]] = arith.addi %[[SA]], %[[SB]] : i32
// CHECK: phobos.store_scalar %[[SUM]]
// CHECK: phobos.store_scalar %[[SA]]
// CHECK: phobos.store_scalar %[[SB]]

// A kernel may be written on one line, and true/false end a statement.
kernel oneline(o: tensor<bool>[N]) { o[0] = true; o[1] = false }

// CHECK-LABEL: phobos.kernel @oneline
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: phobos.store_scalar %[[TRUE]]
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: phobos.store_scalar %[[FALSE]]
