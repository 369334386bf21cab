// RUN: phobos-opt %s --phobos-mark-tensor-map-params --split-input-file --verify-diagnostics | FileCheck %s

// The parameters convert-tile-to-gpu listed become what CUDA passes a
// CUtensorMap as: 128 bytes by value, 64-byte aligned, grid constant (its
// address is taken in place). The list itself is dropped; the maps'
// description stays for the launch contract.
// CHECK-LABEL: llvm.func @k
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32,
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: attributes {nvvm.kernel, phobos.tensor_maps = [array<i64: 0, 128, 64, 128>]}
// CHECK-NOT: phobos.tensor_map_params
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @k(%a: !llvm.ptr<1>, %n: i32, %map: !llvm.ptr) attributes {nvvm.kernel, phobos.tensor_map_params = array<i32: 2>, phobos.tensor_maps = [array<i64: 0, 128, 64, 128>]} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @below {{tensor-map parameter 1 is not a pointer parameter of the kernel}}
    llvm.func @bad(%a: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel, phobos.tensor_map_params = array<i32: 1>} {
      llvm.return
    }
  }
}
