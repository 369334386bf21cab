//===- GPUToNVVM.cpp - Per-thread code to llvm and nvvm in one conversion -===//
//
// What convert-tile-to-gpu leaves in the gpu.module (after scf-to-cf) is a
// gpu.func of arith, cf, llvm and nvvm ops, 10^4 to 10^5 of them once the
// dots are unrolled. Upstream lowers it with one pass per dialect
// (convert-gpu-to-nvvm, convert-arith-to-llvm, convert-cf-to-llvm,
// convert-nvvm-to-llvm), each a dialect conversion that walks every op and,
// by default, logs every change so that it could roll it back. This pass
// puts their patterns into one conversion without rollback: none of them
// fails half-way, so there is nothing to undo, and the ops are walked once.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/BasicPtxBuilderInterface.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace phobos {
#define GEN_PASS_DEF_CONVERTGPUTONVVM
#include "Phobos/Conversion/Passes.h.inc"
} // namespace phobos

using namespace mlir;

namespace {

struct ConvertGPUToNVVM : phobos::impl::ConvertGPUToNVVMBase<ConvertGPUToNVVM> {
  using ConvertGPUToNVVMBase::ConvertGPUToNVVMBase;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    LowerToLLVMOptions options(context, DataLayout(cast<DataLayoutOpInterface>(
                                            module.getOperation())));
    options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(context, options);
    // Address spaces of gpu memory attributions, mma matrix types.
    configureGpuToNVVMTypeConverter(converter);

    RewritePatternSet patterns(context);
    populateGpuToNVVMConversionPatterns(converter, patterns);
    // arith-to-llvm expands ceildivsi (tile-persistent's tile count) and the
    // other divisions LLVM has no instruction for first.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    // NVVM ops with no intrinsic (wgmma.mma_async) become inline PTX.
    populateNVVMToLLVMConversionPatterns(patterns);

    LLVMConversionTarget target(*context);
    configureGpuToNVVMConversionLegality(target);
    target.addIllegalDialect<arith::ArithDialect, cf::ControlFlowDialect>();
    // configureGpuToNVVMConversionLegality makes all of nvvm legal; the ops
    // that must become inline PTX are not.
    target.addDynamicallyLegalDialect<NVVM::NVVMDialect>([](Operation *op) {
      auto ptx = dyn_cast<NVVM::BasicPtxBuilderInterface>(op);
      return !ptx || ptx.hasIntrinsic();
    });

    ConversionConfig config;
    config.allowPatternRollback = false;
    if (failed(applyPartialConversion(module, target, std::move(patterns),
                                      config)))
      return signalPassFailure();
    attachLoopAnnotations(module);
  }

  /// scf-to-cf moves a loop's `llvm.loop_annotation` to its back edge and
  /// cf-to-llvm keeps it there as a discardable attribute, which the LLVM IR
  /// translation ignores: it reads the branch's own `loop_annotation`.
  static void attachLoopAnnotations(gpu::GPUModuleOp module) {
    constexpr StringLiteral name = "llvm.loop_annotation";
    auto attach = [&](auto branch) {
      auto annotation =
          branch->template getAttrOfType<LLVM::LoopAnnotationAttr>(name);
      if (!annotation)
        return;
      branch->removeAttr(name);
      branch.setLoopAnnotationAttr(annotation);
    };
    module.walk([&](Operation *op) {
      if (auto br = dyn_cast<LLVM::BrOp>(op))
        attach(br);
      else if (auto condBr = dyn_cast<LLVM::CondBrOp>(op))
        attach(condBr);
    });
  }
};

} // namespace
