//===- Passes.h - Lowerings out of the phobos dialect -----------*- C++ -*-===//

#ifndef PHOBOS_CONVERSION_PASSES_H
#define PHOBOS_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace phobos {

#define GEN_PASS_DECL
#include "Phobos/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Phobos/Conversion/Passes.h.inc"

} // namespace phobos

#endif // PHOBOS_CONVERSION_PASSES_H
