// RUN: phobos-opt %s | phobos-opt | FileCheck %s
// RUN: phobos-opt %s --mlir-print-op-generic | phobos-opt | FileCheck %s

// Broadcasting element-wise ops on tiles that carry a layout encoding (what
// the GPU pipeline's layout assignment attaches): an op whose tile operands
// share the result's shape and encoding must be able to produce a tile with
// that encoding, and keep it through both syntaxes.

#b2 = #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#b1 = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// CHECK-LABEL: func.func @add_keeps_encoding
// CHECK-SAME: -> !phobos.tile<4x4xf32, #phobos.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>>
// CHECK: %[[S:.*]] = phobos.add
// CHECK: return %[[S]] : !phobos.tile<4x4xf32, #phobos.blocked<{{.*}}>>
func.func @add_keeps_encoding(%a: !phobos.tile<4x4xf32, #b2>)
    -> !phobos.tile<4x4xf32, #b2> {
  %s = "phobos.add"(%a, %a)
      : (!phobos.tile<4x4xf32, #b2>, !phobos.tile<4x4xf32, #b2>)
      -> !phobos.tile<4x4xf32, #b2>
  return %s : !phobos.tile<4x4xf32, #b2>
}

// CHECK-LABEL: func.func @mul_by_scalar_keeps_encoding
// CHECK-SAME: -> !phobos.tile<8xi32, #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>>
// CHECK: %[[P:.*]] = phobos.mul
// CHECK: return %[[P]] : !phobos.tile<8xi32, #phobos.blocked<{{.*}}>>
func.func @mul_by_scalar_keeps_encoding(%t: !phobos.tile<8xi32, #b1>,
                                        %n: i32) -> !phobos.tile<8xi32, #b1> {
  %p = "phobos.mul"(%t, %n) : (!phobos.tile<8xi32, #b1>, i32)
      -> !phobos.tile<8xi32, #b1>
  return %p : !phobos.tile<8xi32, #b1>
}
