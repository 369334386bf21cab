// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-insert-barriers),convert-tile-to-gpu)' | FileCheck %s

// tanh takes the NVPTX fast path, not libdevice: llvm.tanh.f32 with afn,
// which NVPTX selects as tanh.approx.f32. An f16 tile computes in f32 and
// rounds back; a scalar (math.tanh) lowers the same way.
// CHECK-LABEL: gpu.func @tanh_paths
// CHECK: llvm.call_intrinsic "llvm.tanh.f32"(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.tanh.f32"(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
// CHECK: llvm.call_intrinsic "llvm.tanh.f32"(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK-NOT: __nv_tanh
// CHECK: gpu.return
#l = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

phobos.kernel @tanh_paths(%x: f32, %h: f16, %Y: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %H: !phobos.tensor<?xf16> {phobos.dims = ["N"]}) attributes {max_threads = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<32xf32, #l>
  %t = phobos.tanh %a : !phobos.tile<32xf32, #l>
  phobos.store %t, %Y[%c0] : !phobos.tile<32xf32, #l>, !phobos.tensor<?xf32>
  %b = phobos.fill %h : !phobos.tile<32xf16, #l>
  %u = phobos.tanh %b : !phobos.tile<32xf16, #l>
  phobos.store %u, %H[%c0] : !phobos.tile<32xf16, #l>, !phobos.tensor<?xf16>
  %s = math.tanh %x : f32
  %v = phobos.fill %s : !phobos.tile<32xf32, #l>
  phobos.store %v, %Y[%c0] : !phobos.tile<32xf32, #l>, !phobos.tensor<?xf32>
  phobos.return
}

// exp2 and log2 are the bare instructions: no factor of log2 e before
// ex2.approx (exp has one) and none of ln 2 after lg2.approx (log has one).
// An f16 tile of one register a thread computes in f32; scalars (math.exp2,
// math.log2) lower the same.
// CHECK-LABEL: gpu.func @exp2_log2_paths
// CHECK: %[[X:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
// CHECK-NOT: arith.mulf
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
// CHECK-NOT: arith.mulf
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK-NOT: __nv_
// CHECK: gpu.return
#m = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

phobos.kernel @exp2_log2_paths(%x: f32, %h: f16, %Y: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %H: !phobos.tensor<?xf16> {phobos.dims = ["N"]}) attributes {max_threads = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %x : !phobos.tile<32xf32, #m>
  %e = phobos.exp2 %a : !phobos.tile<32xf32, #m>
  phobos.store %e, %Y[%c0] : !phobos.tile<32xf32, #m>, !phobos.tensor<?xf32>
  %l = phobos.log2 %a : !phobos.tile<32xf32, #m>
  phobos.store %l, %Y[%c0] : !phobos.tile<32xf32, #m>, !phobos.tensor<?xf32>
  %b = phobos.fill %h : !phobos.tile<32xf16, #m>
  %u = phobos.exp2 %b : !phobos.tile<32xf16, #m>
  phobos.store %u, %H[%c0] : !phobos.tile<32xf16, #m>, !phobos.tensor<?xf16>
  %s = math.exp2 %x : f32
  %t = math.log2 %s : f32
  %v = phobos.fill %t : !phobos.tile<32xf32, #m>
  phobos.store %v, %Y[%c0] : !phobos.tile<32xf32, #m>, !phobos.tensor<?xf32>
  phobos.return
}

// exp2 of an f16 tile takes ex2.approx.f16x2 two registers at a time (one
// MUFU.EX2 for two powers): two pairs of four registers, then one pair of
// three and its odd last register on the f32 path.
// CHECK-LABEL: gpu.func @half_exp2_pairs
// CHECK: %[[P:.*]] = llvm.mlir.poison : vector<2xf16>
// CHECK: %[[A:.*]] = llvm.insertelement %{{.*}}, %[[P]][%{{.*}} : i32] : vector<2xf16>
// CHECK: %[[B:.*]] = llvm.insertelement %{{.*}}, %[[A]][%{{.*}} : i32] : vector<2xf16>
// CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.v2f16"(%[[B]]) : (vector<2xf16>) -> vector<2xf16>
// CHECK: llvm.extractelement %[[E]][%{{.*}} : i32] : vector<2xf16>
// CHECK: llvm.extractelement %[[E]][%{{.*}} : i32] : vector<2xf16>
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.v2f16"
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.v2f16"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.v2f16"
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.return
#p4 = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
#p3 = #phobos.blocked<sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

phobos.kernel @half_exp2_pairs(%h: f16, %H: !phobos.tensor<?xf16> {phobos.dims = ["N"]}) attributes {max_threads = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = phobos.fill %h : !phobos.tile<128xf16, #p4>
  %e = phobos.exp2 %a : !phobos.tile<128xf16, #p4>
  phobos.store %e, %H[%c0] : !phobos.tile<128xf16, #p4>, !phobos.tensor<?xf16>
  %b = phobos.fill %h : !phobos.tile<96xf16, #p3>
  %u = phobos.exp2 %b : !phobos.tile<96xf16, #p3>
  phobos.store %u, %H[%c0] : !phobos.tile<96xf16, #p3>, !phobos.tensor<?xf16>
  phobos.return
}
