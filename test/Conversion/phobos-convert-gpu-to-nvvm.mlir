// RUN: phobos-opt %s --pass-pipeline='builtin.module(gpu.module(phobos-convert-gpu-to-nvvm))' --split-input-file | FileCheck %s

// One conversion lowers what convert-tile-to-gpu and scf-to-cf leave in a
// gpu.module: the gpu.func becomes an nvvm kernel, arith and cf become
// llvm (index as i64), nvvm ops with an intrinsic stay.

// CHECK-LABEL: gpu.module @phobos_kernels
// CHECK:       llvm.func @k(%[[P:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32) attributes {gpu.kernel, nvvm.kernel}
// CHECK:         %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[LT:.*]] = llvm.icmp "slt" %[[T]], %[[N]] : i32
// CHECK:         llvm.cond_br %[[LT]], ^bb1(%[[T]] : i32), ^bb2
// CHECK:       ^bb1(%[[I:.*]]: i32):
// CHECK:         %[[W:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK:         %[[Q:.*]] = llvm.getelementptr %[[P]][%[[W]]]
// CHECK:         %[[F:.*]] = llvm.sitofp %[[I]] : i32 to f32
// CHECK:         %[[M:.*]] = llvm.fmul %[[F]], %{{.*}} : f32
// CHECK:         llvm.store %[[M]], %[[Q]]
// CHECK:         llvm.br ^bb2
// CHECK:       ^bb2:
// CHECK:         nvvm.barrier0
// CHECK:         llvm.return
// CHECK-NOT:   arith.
// CHECK-NOT:   cf.
// CHECK-NOT:   gpu.func
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    gpu.func @k(%p: !llvm.ptr<1>, %n: i32) kernel {
      %two = arith.constant 2.0 : f32
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %lt = arith.cmpi slt, %t, %n : i32
      cf.cond_br %lt, ^store(%t : i32), ^done
    ^store(%i: i32):
      %wide = arith.extsi %i : i32 to i64
      %q = llvm.getelementptr %p[%wide] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %f = arith.sitofp %i : i32 to f32
      %m = arith.mulf %f, %two : f32
      llvm.store %m, %q : f32, !llvm.ptr<1>
      cf.br ^done
    ^done:
      nvvm.barrier0
      gpu.return
    }
  }
}

// -----

// An nvvm op with no LLVM intrinsic (wgmma.mma_async) becomes inline PTX;
// the fence beside it has an intrinsic and stays.

// CHECK-LABEL: llvm.func @wgmma
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att
// CHECK-SAME:      wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16
// CHECK-NOT:     nvvm.wgmma.mma_async
// CHECK:         llvm.return
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    gpu.func @wgmma(%a: i64, %b: i64) kernel {
      %zero = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.fence.aligned
      %d = nvvm.wgmma.mma_async %a, %b, %zero, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      gpu.return
    }
  }
}

// -----

// index arithmetic is 64-bit.

// CHECK-LABEL: llvm.func @index
// CHECK:         %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[I:.*]] = llvm.sext %[[T]] : i32 to i64
// CHECK:         llvm.add %[[I]], %[[I]] : i64
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    gpu.func @index(%p: !llvm.ptr<1>) kernel {
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %i = arith.index_cast %t : i32 to index
      %j = arith.addi %i, %i : index
      %k = arith.index_cast %j : index to i64
      %q = llvm.getelementptr %p[%k] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      llvm.store %t, %q : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}

// -----

// Divisions LLVM has no instruction for (tile-persistent's ceildivsi) are
// expanded first, as arith-to-llvm does.

// CHECK-LABEL: llvm.func @ceildiv
// CHECK-NOT:     arith.ceildivsi
// CHECK:         llvm.sdiv
// CHECK:         llvm.return
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    gpu.func @ceildiv(%p: !llvm.ptr<1>, %n: i32, %d: i32) kernel {
      %q = arith.ceildivsi %n, %d : i32
      llvm.store %q, %p : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}

// -----

// A rolled loop's "do not unroll" (scf-to-cf leaves it on the back edge as
// a discardable attribute) becomes the llvm.br's own loop_annotation, the
// one the translation to LLVM IR reads.

// CHECK: #[[$UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[$NOUNROLL:.*]] = #llvm.loop_annotation<unroll = #[[$UNROLL]]>
// CHECK-LABEL: llvm.func @rolled
// CHECK:         llvm.br ^bb1(%{{.*}} : i32) {loop_annotation = #[[$NOUNROLL]]}
// CHECK-NOT:     llvm.loop_annotation
#nounroll = #llvm.loop_annotation<unroll = <disable = true>>
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    gpu.func @rolled(%p: !llvm.ptr<1>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      cf.br ^head(%c0 : i32)
    ^head(%i: i32):
      %more = arith.cmpi slt, %i, %n : i32
      cf.cond_br %more, ^body, ^exit
    ^body:
      llvm.store %i, %p : i32, !llvm.ptr<1>
      %next = arith.addi %i, %c1 : i32
      cf.br ^head(%next : i32) {llvm.loop_annotation = #nounroll}
    ^exit:
      gpu.return
    }
  }
}
