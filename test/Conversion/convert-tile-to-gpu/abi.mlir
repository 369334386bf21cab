// RUN: phobos-opt %s --convert-tile-to-gpu --split-input-file | FileCheck %s

// Each laid-out phobos.kernel becomes a gpu.func (kernel) in one
// gpu.module @phobos_kernels, with the parameters of the launch ABI: a
// tensor is a global pointer followed by one i32 per dynamic extent, a
// scalar is its value, a bool is an i8.

#l = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// CHECK: module attributes {gpu.container_module}
// CHECK-NEXT: gpu.module @phobos_kernels
// CHECK-NEXT: llvm.mlir.global external @phobos_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @abi
// CHECK-SAME: (%[[X:[^:]*]]: !llvm.ptr<1>, %[[XM:[^:]*]]: i32, %[[XN:[^:]*]]: i32, %[[H:[^:]*]]: !llvm.ptr<1>, %[[HN:[^:]*]]: i32, %[[S:[^:]*]]: f32, %[[N:[^:]*]]: i32, %[[FLAG:[^:]*]]: i8, %[[OUT:[^:]*]]: !llvm.ptr<1>, %[[OM:[^:]*]]: i32)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.maxnreg = 64 : i32, nvvm.minctasm = 2 : i32, phobos.shared_bytes = 0 : i64}
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// The lane and the warp.
// CHECK: arith.andi %[[TID]], %{{.*}} : i32
// CHECK: arith.shrui %[[TID]], %{{.*}} : i32
// CHECK: llvm.mlir.addressof @phobos_smem : !llvm.ptr<3>
// CHECK: %[[B:.*]] = arith.trunci %[[FLAG]] : i8 to i1
// CHECK: nvvm.read.ptx.sreg.ctaid.x : i32
// A tile of 64 f32 in this layout is 4 registers per thread; the if
// carries them.
// CHECK: %[[T:.*]]:4 = scf.if %[[B]] -> (f32, f32, f32, f32)
// CHECK: arith.addf %[[S]], %{{.*}} : f32
// CHECK: scf.yield %[[S]], %[[S]], %[[S]], %[[S]] : f32, f32, f32, f32
// The store is masked against the extent of Out.
// CHECK: arith.cmpi ult, %{{.*}}, %[[OM]] : i32
// CHECK: llvm.getelementptr %[[OUT]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.store %[[T]]#0
// CHECK: gpu.return
// CHECK-NOT: phobos.
phobos.kernel @abi(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                   %H: !phobos.tensor<?x64xf16> {phobos.dims = ["N", "64"]},
                   %s: f32, %n: i32, %flag: i1,
                   %Out: !phobos.tensor<?xf32> {phobos.dims = ["M"]})
    attributes {max_regs = 64 : i32, max_threads = 128 : i32, min_blocks = 2 : i32,
                phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %one = arith.constant 1.0 : f32
  %c64 = arith.constant 64 : i32
  %bx = phobos.block_id x
  %row = arith.muli %bx, %c64 : i32
  %t = phobos.fill %s : !phobos.tile<64xf32, #l>
  %u = scf.if %flag -> (!phobos.tile<64xf32, #l>) {
    %v = phobos.add %t, %one : !phobos.tile<64xf32, #l>, f32
    scf.yield %v : !phobos.tile<64xf32, #l>
  } else {
    scf.yield %t : !phobos.tile<64xf32, #l>
  }
  phobos.store %u, %Out[%row] : !phobos.tile<64xf32, #l>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

#l = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>

// Several kernels share the gpu.module. Static extents take no parameter;
// the CTA size defaults to 256; grid queries read the special registers.
// CHECK: gpu.module @phobos_kernels
// CHECK-LABEL: gpu.func @first(%{{[^:]*}}: !llvm.ptr<1>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @second(%{{[^:]*}}: i8, %{{[^:]*}}: f64, %{{[^:]*}}: i64)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK-NOT: phobos.kernel
phobos.kernel @first(%A: !phobos.tensor<1024xi32> {phobos.dims = ["L"]}) {
  %by = phobos.block_id y
  %gx = phobos.grid_dim x
  %c0 = arith.constant 0 : i32
  %s = arith.addi %by, %gx : i32
  phobos.store_scalar %s, %A[%c0] : !phobos.tensor<1024xi32>
  phobos.return
}
phobos.kernel @second(%b: i1, %d: f64, %i: i64) {
  phobos.return
}

// -----

// A grouped block index (tile-group-blocks) is BlockIdOp::groupedIndex of
// the special registers: pid = y * gx + x, groups of 8 x-values.
// CHECK-LABEL: gpu.func @grouped
// CHECK-DAG: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-DAG: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-DAG: %[[GX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-DAG: %[[GY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK: %[[YGX:.*]] = arith.muli %[[Y]], %[[GX]] : i32
// CHECK: %[[PID:.*]] = arith.addi %[[YGX]], %[[X]] : i32
// CHECK: %[[G:.*]] = arith.constant 8 : i32
// CHECK: %[[PER:.*]] = arith.muli %[[G]], %[[GY]] : i32
// CHECK: %[[Q:.*]] = arith.divui %[[PID]], %[[PER]] : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[Q]], %[[G]] : i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[GX]], %[[FIRST]] : i32
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[G]] : i32
// CHECK: %[[IN:.*]] = arith.remui %[[PID]], %[[PER]] : i32
// CHECK: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]] : i32
// CHECK: %[[NX:.*]] = arith.addi %[[FIRST]], %[[R]] : i32
// The y index repeats the chain (cse merges it), ending in its divui.
// CHECK: %[[IN2:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: %[[NY:.*]] = arith.divui %[[IN2]], %{{.*}} : i32
// CHECK: arith.addi %[[NX]], %[[NY]] : i32
phobos.kernel @grouped(%A: !phobos.tensor<1024xi32> {phobos.dims = ["L"]}) {
  %bx = phobos.block_id x group 8
  %by = phobos.block_id y group 8
  %c0 = arith.constant 0 : i32
  %s = arith.addi %bx, %by : i32
  phobos.store_scalar %s, %A[%c0] : !phobos.tensor<1024xi32>
  phobos.return
}

// -----

// A persistent kernel's tile coordinates (tile-persistent) are
// TileCoordOp::evaluate of the tile index: x = t % gx, y = t / gx % gy,
// z = t / (gx * gy); grouped, the grouped index of t % (gx * gy). The
// kernel says it is persistent, for the launch contract.
// CHECK-LABEL: gpu.func @persistent(
// CHECK-SAME: phobos.persistent
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK:   %[[X:.*]] = arith.remui %[[T]], %[[GX:[^ ]*]] : i32
// CHECK:   %[[TGX:.*]] = arith.divui %[[T]], %[[GX]] : i32
// CHECK:   %[[Y:.*]] = arith.remui %[[TGX]], %[[GY:[^ ]*]] : i32
// CHECK:   %[[PLANE:.*]] = arith.muli %[[GX]], %[[GY]] : i32
// CHECK:   %[[Z:.*]] = arith.divui %[[T]], %[[PLANE]] : i32
// CHECK:   %[[PID:.*]] = arith.remui %[[T]], %{{.*}} : i32
// CHECK:   arith.divui %[[PID]], %{{.*}} : i32
phobos.kernel @persistent(%A: !phobos.tensor<?xi32> {phobos.dims = ["L"]})
    attributes {persistent} {
  %c0 = arith.constant 0 : i32
  %gx = phobos.dim %A[0] : !phobos.tensor<?xi32>
  %c3 = arith.constant 3 : i32
  %tiles = arith.muli %gx, %c3 : i32
  %first = phobos.block_id x
  %ctas = phobos.grid_dim x
  scf.for %t = %first to %tiles step %ctas : i32 {
    %x = phobos.tile_coord x of %t in %gx, %c3
    %y = phobos.tile_coord y of %t in %gx, %c3
    %z = phobos.tile_coord z of %t in %gx, %c3
    %g = phobos.tile_coord y of %t in %gx, %c3 group 4
    %xy = arith.addi %x, %y : i32
    %xyz = arith.addi %xy, %z : i32
    %s = arith.addi %xyz, %g : i32
    phobos.store_scalar %s, %A[%t] : !phobos.tensor<?xi32>
  } {phobos.tile_loop}
  phobos.return
}

// -----

// A module without kernels gets no gpu.module.
// CHECK-LABEL: module {
// CHECK-NOT: gpu.module
func.func private @not_a_kernel()

// -----

// An extent that @aligned promises is a multiple of 24 (so of 8) becomes
// (N >> 3) << 3: the same value, whose low bits LLVM then knows are zero,
// so the run-time alignment checks of vector accesses fold away. M has no
// promise and stays as it is.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: gpu.func @aligned_extent
// CHECK-SAME: (%[[X:[^:]*]]: !llvm.ptr<1>, %[[XM:[^:]*]]: i32, %[[XN:[^:]*]]: i32, %[[OUT:[^:]*]]: !llvm.ptr<1>, %[[OM:[^:]*]]: i32)
// CHECK: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[HI:.*]] = arith.shrui %[[XN]], %[[C3]] : i32
// CHECK-NEXT: %[[N:.*]] = arith.shli %[[HI]], %[[C3]] : i32
// CHECK-NOT: arith.shrui %[[XM]]
// CHECK-NOT: arith.shrui %[[OM]]
// CHECK: llvm.store
#l1 = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
phobos.kernel @aligned_extent(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                              %Out: !phobos.tensor<?xf32> {phobos.dims = ["M"]})
    attributes {aligned = {N = 24 : i64}, max_threads = 128 : i32,
                phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %n = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %f = arith.sitofp %n : i32 to f32
  %t = phobos.fill %f : !phobos.tile<512xf32, #l1>
  phobos.store %t, %Out[%c0] : !phobos.tile<512xf32, #l1>, !phobos.tensor<?xf32>
  phobos.return
}
