// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-defer-lane-sums))' --split-input-file | FileCheck %s

// Attention's running sum, l = c * l + rowsum(p), on an mma accumulator
// (each row over a quad of lanes): the row sum keeps its lanes' partials,
// and one sum after the loop combines them; every use of the loop's result
// reads the combined value.

// CHECK-LABEL: phobos.kernel @running_sum
// CHECK: %[[R:.*]]:2 = scf.for
// CHECK: %[[S:.*]] = phobos.reduce sum %{{.*}} along 1 {keep_lane_partials}
// CHECK-NEXT: phobos.reduce max %{{.*}} along 1 :
// CHECK: %[[CL:.*]] = phobos.mul %{{.*}}, %{{.*}}
// CHECK-NEXT: %[[L:.*]] = phobos.add %[[CL]], %[[S]]
// CHECK-NEXT: scf.yield %[[L]], %{{.*}}
// CHECK: %[[T:.*]] = phobos.reduce sum %[[R]]#0 along 1 {combine_lane_partials}
// CHECK-NEXT: phobos.reshape %[[T]]
#mma = #phobos.mma<warpsPerCTA = [4, 1]>
phobos.kernel @running_sum(%X: !phobos.tensor<?x64xf32> {phobos.dims = ["N", "C"]}, %O: !phobos.tensor<?xf32> {phobos.dims = ["N"]}) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %neg = arith.constant -1.0e30 : f32
  %n = phobos.dim %X[0] : !phobos.tensor<?x64xf32>
  %l0 = phobos.fill %zero : !phobos.tile<64x1xf32, #mma>
  %m0 = phobos.fill %neg : !phobos.tile<64x1xf32, #mma>
  %r:2 = scf.for %k = %c0 to %n step %c64 iter_args(%l = %l0, %m = %m0) -> (!phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>) : i32 {
    %p = phobos.load %X[%k, %c0] : !phobos.tensor<?x64xf32> -> !phobos.tile<64x64xf32, #mma>
    %s = phobos.reduce sum %p along 1 : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %mx = phobos.reduce max %p along 1 : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %mn = phobos.max %m, %mx : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    %d = phobos.sub %m, %mn : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    %c = phobos.exp2 %d : !phobos.tile<64x1xf32, #mma>
    %cl = phobos.mul %c, %l : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    %ln = phobos.add %cl, %s : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    scf.yield %ln, %mn : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
  }
  %flat = phobos.reshape %r#0 : !phobos.tile<64x1xf32, #mma> -> !phobos.tile<64xf32, #phobos.slice<dim = 1, parent = #mma>>
  phobos.store %flat, %O[%c0] : !phobos.tile<64xf32, #phobos.slice<dim = 1, parent = #mma>>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// A split loop: the remainder carries the main loop's partials on; only
// the last loop's result is combined.

// CHECK-LABEL: phobos.kernel @split
// CHECK: %[[A:.*]] = scf.for
// CHECK: phobos.reduce sum %{{.*}} along 1 {keep_lane_partials}
// CHECK: %[[B:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[A]])
// CHECK: phobos.reduce sum %{{.*}} along 1 {keep_lane_partials}
// CHECK: phobos.reduce sum %[[B]] along 1 {combine_lane_partials}
// CHECK-NOT: combine_lane_partials
#mma = #phobos.mma<warpsPerCTA = [4, 1]>
phobos.kernel @split(%X: !phobos.tensor<?x64xf32> {phobos.dims = ["N", "C"]}, %O: !phobos.tensor<?xf32> {phobos.dims = ["N"]}) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %X[0] : !phobos.tensor<?x64xf32>
  %full = arith.divsi %n, %c64 : i32
  %mid = arith.muli %full, %c64 : i32
  %l0 = phobos.fill %zero : !phobos.tile<64x1xf32, #mma>
  %a = scf.for %k = %c0 to %mid step %c64 iter_args(%l = %l0) -> (!phobos.tile<64x1xf32, #mma>) : i32 {
    %p = phobos.load %X[%k, %c0] : !phobos.tensor<?x64xf32> -> !phobos.tile<64x64xf32, #mma>
    %s = phobos.reduce sum %p along 1 : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %ln = phobos.add %l, %s : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    scf.yield %ln : !phobos.tile<64x1xf32, #mma>
  }
  %b = scf.for %k = %mid to %n step %c64 iter_args(%l = %a) -> (!phobos.tile<64x1xf32, #mma>) : i32 {
    %p = phobos.load %X[%k, %c0] : !phobos.tensor<?x64xf32> -> !phobos.tile<64x64xf32, #mma>
    %s = phobos.reduce sum %p along 1 : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %ln = phobos.add %s, %l : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    scf.yield %ln : !phobos.tile<64x1xf32, #mma>
  }
  %flat = phobos.reshape %b : !phobos.tile<64x1xf32, #mma> -> !phobos.tile<64xf32, #phobos.slice<dim = 1, parent = #mma>>
  phobos.store %flat, %O[%c0] : !phobos.tile<64xf32, #phobos.slice<dim = 1, parent = #mma>>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// Left alone: a sum that starts from a value other than zero (each lane
// would add it), one the loop also reads elsewhere (it would read one
// lane's part), one updated with a value that is not a sum (added in every
// lane), and one over a row spread across warps.

// CHECK-LABEL: phobos.kernel @not_deferred
// CHECK-NOT: lane_partials
// CHECK: phobos.return
#mma = #phobos.mma<warpsPerCTA = [4, 1]>
#wide = #phobos.mma<warpsPerCTA = [2, 2]>
phobos.kernel @not_deferred(%X: !phobos.tensor<?x64xf32> {phobos.dims = ["N", "C"]}, %O: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %x: f32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %X[0] : !phobos.tensor<?x64xf32>
  %one = phobos.fill %x : !phobos.tile<64x1xf32, #mma>
  %l0 = phobos.fill %zero : !phobos.tile<64x1xf32, #mma>
  %w0 = phobos.fill %zero : !phobos.tile<64x1xf32, #wide>
  %r:4 = scf.for %k = %c0 to %n step %c64 iter_args(%a = %one, %b = %l0, %c = %l0, %w = %w0) -> (!phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #wide>) : i32 {
    %p = phobos.load %X[%k, %c0] : !phobos.tensor<?x64xf32> -> !phobos.tile<64x64xf32, #mma>
    %s1 = phobos.reduce sum %p along 1 : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %an = phobos.add %a, %s1 : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    %s2 = phobos.reduce sum %p along 1 : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %bn = phobos.add %b, %s2 : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    %flatb = phobos.reshape %b : !phobos.tile<64x1xf32, #mma> -> !phobos.tile<64xf32, #phobos.slice<dim = 1, parent = #mma>>
    phobos.store %flatb, %O[%k] : !phobos.tile<64xf32, #phobos.slice<dim = 1, parent = #mma>>, !phobos.tensor<?xf32>
    %s3 = phobos.reduce sum %p along 1 : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %t = phobos.add %s3, %one : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    %cn = phobos.add %c, %t : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    %q = phobos.load %X[%k, %c0] : !phobos.tensor<?x64xf32> -> !phobos.tile<64x64xf32, #wide>
    %s4 = phobos.reduce sum %q along 1 : !phobos.tile<64x64xf32, #wide> -> !phobos.tile<64x1xf32, #wide>
    %wn = phobos.add %w, %s4 : !phobos.tile<64x1xf32, #wide>, !phobos.tile<64x1xf32, #wide>
    scf.yield %an, %bn, %cn, %wn : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #wide>
  }
  phobos.return
}
