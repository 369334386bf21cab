// for / while / if with the vars they assign carried out (scf iter_args and
// results): scalar and tile accumulators, steps, loops that run zero times,
// an i64 induction variable, nested loops, else-if chains.
// RUN: phobos-run %s --interpret --dim N=10 --scalar start=27 --scalar big=3000000000 --print | FileCheck %s

kernel control(Sums: tensor<i32>[6], Acc: tensor<f32>[4], Collatz: tensor<i32>[2],
               Branch: tensor<i32>[6], Tiles: tensor<f32>[2, 2], Wide: tensor<i64>[2],
               Seen: tensor<i32>[N], start: i32, big: i64) {
    var s1 = 0
    for i in range(0, N) { s1 += i }           // 45
    var s2 = 0
    for i in range(3, N, 3) { s2 += i }        // 3 + 6 + 9 = 18
    var s3 = 100
    for i in range(N, 2) { s3 += i }           // runs zero times
    var s4 = 0
    for i in range(N, N) { s4 = 1 }            // zero times too
    var s5 = 0
    for i in range(0, 4) {                     // nested: sum of i * j over 4 x 3
        for j in range(0, 3) { s5 += i * j }   // 6 * 3 = 18
    }
    var s6 = 0
    for i in range(-3, 3, 2) { s6 = s6 * 10 + i + 5 }   // 2, 4, 6 -> 246
    Sums[0 :+ 6] = where(arange(6) == 0, s1, where(arange(6) == 1, s2,
                   where(arange(6) == 2, s3, where(arange(6) == 3, s4,
                   where(arange(6) == 4, s5, s6)))))
    // A tile carried through a loop.
    var acc: tile<f32>[4] = 1.0
    for k in range(0, 3) { acc = acc * 2.0 + f32(arange(4)) }
    Acc[0 :+ 4] = acc                          // ((1*2+a)*2+a)*2+a = 8 + 7a
    // while: Collatz steps from `start`.
    var n = start
    var steps = 0
    while n != 1 {
        if n % 2 == 0 { n = n / 2 } else { n = 3 * n + 1 }
        steps += 1
    }
    Collatz[0] = steps                         // 111 for 27
    Collatz[1] = n
    // A while that runs zero times keeps its vars.
    var w = 5
    while w < 0 { w = w - 1 }
    // if / else if / else, each assigning different vars.
    for v in range(0, 6) {
        var r = -1
        if v < 2 {
            r = 10
        } else if v == 2 {
            r = 20
        } else if v < 5 {
            r = 30 + w
        }
        Branch[v] = r
    }
    // A tile assigned in one branch only.
    var t: tile<f32>[2, 2] = 0.0
    if start > 20 { t = t + 3.0 } else { t = t - 3.0 }
    if start < 20 { t = t * 100.0 }
    Tiles[0 :+ 2, 0 :+ 2] = t
    // An i64 bound makes the induction variable i64.
    var last: i64 = 0
    var count = 0
    for i in range(big - 3, big) { last = i; count += 1 }
    Wide[0] = last
    Wide[1] = i64(count)
    // A scalar store in every iteration.
    for i in range(0, N) { Seen[i] = i * i }
}

// CHECK: Sums = [45, 18, 100, 0, 18, 246]
// CHECK-NEXT: Acc = [8, 15, 22, 29]
// CHECK-NEXT: Collatz = [111, 1]
// CHECK-NEXT: Branch = [10, 10, 20, 35, 35, -1]
// CHECK-NEXT: Tiles = [3, 3; 3, 3]
// CHECK-NEXT: Wide = [2999999999, 3]
// CHECK-NEXT: Seen = [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
