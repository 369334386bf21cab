// RUN: phobos-translate --import-phobos %s | FileCheck %s

// Precedence from loose to tight: || && (== !=) (< <= > >=) (+ -) (* / %),
// unary - !, then postfix. Binary operators are left-associative. The order
// of the arith ops shows how each expression grouped.
kernel precedence(o: tensor<i32>[N], a: i32, b: i32, c: i32) {
    o[0] = a + b * c
    o[1] = (a + b) * c
    o[2] = a - b - c
    o[3] = a / b % c
    o[4] = -a + b
    o[5] = a * -b
    o[6] = a % b + c / a
}
// CHECK-LABEL: phobos.kernel @precedence
// CHECK-SAME: %[[A:[^:]*]]: i32{{.*}}, %[[B:[^:]*]]: i32{{.*}}, %[[C:[^:]*]]: i32
// a + b * c
// CHECK: %[[M0:.*]] = arith.muli %[[B]], %[[C]] : i32
// CHECK-NEXT: %[[S0:.*]] = arith.addi %[[A]], %[[M0]] : i32
// CHECK: phobos.store_scalar %[[S0]]
// (a + b) * c
// CHECK: %[[S1:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[M1:.*]] = arith.muli %[[S1]], %[[C]] : i32
// CHECK: phobos.store_scalar %[[M1]]
// a - b - c is (a - b) - c
// CHECK: %[[D2:.*]] = arith.subi %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[D2B:.*]] = arith.subi %[[D2]], %[[C]] : i32
// CHECK: phobos.store_scalar %[[D2B]]
// a / b % c is (a / b) % c
// CHECK: %[[Q3:.*]] = arith.divsi %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[R3:.*]] = arith.remsi %[[Q3]], %[[C]] : i32
// CHECK: phobos.store_scalar %[[R3]]
// -a + b is (0 - a) + b
// CHECK: %[[Z4:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[N4:.*]] = arith.subi %[[Z4]], %[[A]] : i32
// CHECK-NEXT: %[[S4:.*]] = arith.addi %[[N4]], %[[B]] : i32
// CHECK: phobos.store_scalar %[[S4]]
// a * -b
// CHECK: %[[Z5:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[N5:.*]] = arith.subi %[[Z5]], %[[B]] : i32
// CHECK-NEXT: %[[M5:.*]] = arith.muli %[[A]], %[[N5]] : i32
// CHECK: phobos.store_scalar %[[M5]]
// a % b + c / a
// CHECK: %[[R6:.*]] = arith.remsi %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[Q6:.*]] = arith.divsi %[[C]], %[[A]] : i32
// CHECK-NEXT: %[[S6:.*]] = arith.addi %[[R6]], %[[Q6]] : i32
// CHECK: phobos.store_scalar %[[S6]]

// Comparisons bind tighter than equality, equality tighter than &&, && tighter
// than ||; '!' applies to the operand right after it.
kernel logic(o: tensor<bool>[N], a: i32, b: i32, c: i32, p: bool, q: bool) {
    o[0] = a < b == b >= c
    o[1] = p || q && !p
    o[2] = a + 1 <= b * 2 != p
    o[3] = a > b
    o[4] = a != b
}
// CHECK-LABEL: phobos.kernel @logic
// CHECK-SAME: %[[LA:[^:]*]]: i32{{.*}}, %[[LB:[^:]*]]: i32{{.*}}, %[[LC:[^:]*]]: i32{{.*}}, %[[P:[^:]*]]: i1{{.*}}, %[[Q:[^:]*]]: i1
// (a < b) == (b >= c)
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[LA]], %[[LB]] : i32
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[LB]], %[[LC]] : i32
// CHECK-NEXT: %[[EQ:.*]] = arith.cmpi eq, %[[LT]], %[[GE]] : i1
// CHECK: phobos.store_scalar %[[EQ]]
// p || (q && !p)
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[NOTP:.*]] = arith.xori %[[P]], %[[TRUE]] : i1
// CHECK-NEXT: %[[AND:.*]] = arith.andi %[[Q]], %[[NOTP]] : i1
// CHECK-NEXT: %[[OR:.*]] = arith.ori %[[P]], %[[AND]] : i1
// CHECK: phobos.store_scalar %[[OR]]
// ((a + 1) <= (b * 2)) != p
// CHECK: %[[ADD:.*]] = arith.addi %[[LA]], %{{.*}} : i32
// CHECK: %[[MUL:.*]] = arith.muli %[[LB]], %{{.*}} : i32
// CHECK-NEXT: %[[LE:.*]] = arith.cmpi sle, %[[ADD]], %[[MUL]] : i32
// CHECK-NEXT: %[[NE:.*]] = arith.cmpi ne, %[[LE]], %[[P]] : i1
// CHECK: phobos.store_scalar %[[NE]]
// CHECK: arith.cmpi sgt, %[[LA]], %[[LB]] : i32
// CHECK: arith.cmpi ne, %[[LA]], %[[LB]] : i32

// Float operators and predicates (ordered, except '!=', which is unordered).
kernel floats(o: tensor<bool>[N], f: tensor<f32>[N], x: f32, y: f32) {
    f[0] = x * y + x / y - x
    f[1] = -x
    o[0] = x < y
    o[1] = x <= y
    o[2] = x > y
    o[3] = x >= y
    o[4] = x == y
    o[5] = x != y
}
// CHECK-LABEL: phobos.kernel @floats
// CHECK-SAME: %[[FX:[^:]*]]: f32{{.*}}, %[[FY:[^:]*]]: f32
// CHECK: %[[FM:.*]] = arith.mulf %[[FX]], %[[FY]] : f32
// CHECK-NEXT: %[[FD:.*]] = arith.divf %[[FX]], %[[FY]] : f32
// CHECK-NEXT: %[[FA:.*]] = arith.addf %[[FM]], %[[FD]] : f32
// CHECK-NEXT: %[[FS:.*]] = arith.subf %[[FA]], %[[FX]] : f32
// CHECK: phobos.store_scalar %[[FS]]
// CHECK: arith.negf %[[FX]] : f32
// CHECK: arith.cmpf olt, %[[FX]], %[[FY]] : f32
// CHECK: arith.cmpf ole, %[[FX]], %[[FY]] : f32
// CHECK: arith.cmpf ogt, %[[FX]], %[[FY]] : f32
// CHECK: arith.cmpf oge, %[[FX]], %[[FY]] : f32
// CHECK: arith.cmpf oeq, %[[FX]], %[[FY]] : f32
// CHECK: arith.cmpf une, %[[FX]], %[[FY]] : f32

// Mixed scalar arithmetic promotes: i32 with f32 is f32, i32 with i64 is i64.
kernel promotion(f: tensor<f32>[N], l: tensor<i64>[N], n: i32, w: i64, x: f32) {
    f[0] = n + x
    l[0] = n * w
}
// CHECK-LABEL: phobos.kernel @promotion
// CHECK-SAME: %[[PN:[^:]*]]: i32{{.*}}, %[[PW:[^:]*]]: i64{{.*}}, %[[PX:[^:]*]]: f32
// CHECK: %[[NF:.*]] = arith.sitofp %[[PN]] : i32 to f32
// CHECK-NEXT: arith.addf %[[NF]], %[[PX]] : f32
// CHECK: %[[NW:.*]] = arith.extsi %[[PN]] : i32 to i64
// CHECK-NEXT: arith.muli %[[NW]], %[[PW]] : i64
