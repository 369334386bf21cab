// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s

// tile-defer-lane-sums' two sums on an mma accumulator, whose rows sit on
// quads of lanes: keep_lane_partials adds a thread's registers and no
// lanes (no shuffle in the loop); combine_lane_partials adds the quad's
// partials with two butterfly shuffles and no test of which lane holds
// the canonical copy (a plain sum of a [64, 1] tile keeps only lane 0's).

// CHECK-LABEL: gpu.func @lane_partials
// CHECK: scf.for
// CHECK-NOT: nvvm.shfl.sync
// CHECK: scf.yield
// CHECK-NOT: arith.cmpi
// CHECK-COUNT-4: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: gpu.return
#mma = #phobos.mma<warpsPerCTA = [4, 1]>
#row = #phobos.slice<dim = 1, parent = #mma>
phobos.kernel @lane_partials(%X: !phobos.tensor<?x64xf32> {phobos.dims = ["N", "C"]}, %O: !phobos.tensor<?xf32> {phobos.dims = ["N"]}) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %X[0] : !phobos.tensor<?x64xf32>
  %l0 = phobos.fill %zero : !phobos.tile<64x1xf32, #mma>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%l = %l0) -> (!phobos.tile<64x1xf32, #mma>) : i32 {
    %f = arith.sitofp %k : i32 to f32
    %p = phobos.fill %f : !phobos.tile<64x64xf32, #mma>
    %s = phobos.reduce sum %p along 1 {keep_lane_partials} : !phobos.tile<64x64xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
    %ln = phobos.add %l, %s : !phobos.tile<64x1xf32, #mma>, !phobos.tile<64x1xf32, #mma>
    scf.yield %ln : !phobos.tile<64x1xf32, #mma>
  }
  %t = phobos.reduce sum %r along 1 {combine_lane_partials} : !phobos.tile<64x1xf32, #mma> -> !phobos.tile<64x1xf32, #mma>
  %flat = phobos.reshape %t : !phobos.tile<64x1xf32, #mma> -> !phobos.tile<64xf32, #row>
  phobos.store %flat, %O[%c0] : !phobos.tile<64xf32, #row>, !phobos.tensor<?xf32>
  phobos.return
}
