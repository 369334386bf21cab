//===- TensorMapParams.cpp - Tensor maps as by-value kernel parameters ----===//

#include "Phobos/Conversion/Passes.h"

namespace phobos {
#define GEN_PASS_DEF_MARKTENSORMAPPARAMS
#include "Phobos/Conversion/Passes.h.inc"
} // namespace phobos

using namespace mlir;

namespace {

/// Bytes of a CUtensorMap, and the alignment CUDA requires of it.
constexpr int64_t kTensorMapBytes = 128, kTensorMapAlign = 64;

struct MarkTensorMapParams
    : phobos::impl::MarkTensorMapParamsBase<MarkTensorMapParams> {
  using MarkTensorMapParamsBase::MarkTensorMapParamsBase;

  void runOnOperation() override {
    // Functions are not nested in functions: their bodies are skipped.
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
      if (!func)
        return WalkResult::advance();
      auto positions = func->getAttrOfType<DenseI32ArrayAttr>(
          phobos::kTensorMapParamsAttrName);
      if (!positions)
        return WalkResult::skip();
      Builder b(&getContext());
      for (int32_t position : positions.asArrayRef()) {
        if (position < 0 ||
            position >= static_cast<int32_t>(func.getNumArguments()) ||
            !isa<LLVM::LLVMPointerType>(func.getArgument(position).getType())) {
          func.emitError("tensor-map parameter ")
              << position << " is not a pointer parameter of the kernel";
          signalPassFailure();
          return WalkResult::interrupt();
        }
        func.setArgAttr(position, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            b.getI8Type(), kTensorMapBytes)));
        func.setArgAttr(position, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(kTensorMapAlign));
        func.setArgAttr(position,
                        NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
      func->removeAttr(phobos::kTensorMapParamsAttrName);
      return WalkResult::skip();
    });
  }
};

} // namespace
