//===- InitAllDialects.cpp - Dialects the Phobos tools load ---------------===//

#include "Phobos/InitAllDialects.h"

#include "Phobos/Dialect/Cluster/IR/ClusterDialect.h"
#include "Phobos/Dialect/Tile/IR/TileDialect.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"

void phobos::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, cluster::ClusterDialect,
                  mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::nvgpu::NVGPUDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  registerPTXTranslationInterfaces(registry);
}
