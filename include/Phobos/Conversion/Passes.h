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

/// On a kernel lowered from a phobos.kernel: the positions of its
/// tensor-map parameters (convert-tile-to-gpu sets it,
/// phobos-mark-tensor-map-params consumes it).
inline constexpr llvm::StringLiteral kTensorMapParamsAttrName =
    "phobos.tensor_map_params";
/// On such a kernel: what each tensor map describes, for the launch
/// contract (an array of `array<i64: argument, box rows, box cols, swizzle
/// bytes>`, in parameter order).
inline constexpr llvm::StringLiteral kTensorMapsAttrName = "phobos.tensor_maps";
/// On such a kernel: its CTAs loop over the tiles of its grid
/// (tile-persistent), so the launcher chooses how many it starts.
inline constexpr llvm::StringLiteral kPersistentAttrName = "phobos.persistent";
/// On such a kernel: the longest K slice (i64) of the FMA dots it unrolled
/// whole, so that a driver knows a rolled K loop (fma-k-unroll) would give
/// other code.
inline constexpr llvm::StringLiteral kFmaKStepsAttrName = "phobos.fma_k_steps";
/// On such a kernel: the most k-steps of register fragments (i64) a
/// swap_ab wgmma dot loads before it issues them, so that a driver knows
/// fewer per group (wgmma-fragment-steps) would give other code.
inline constexpr llvm::StringLiteral kWgmmaFragmentStepsAttrName =
    "phobos.wgmma_fragment_steps";
/// On a kernel with a dot kept in flight (`in_flight`: tile-defer-dots,
/// tile-pipeline), so that a driver knows the pipeline's synchronous-dots
/// would give other code.
inline constexpr llvm::StringLiteral kDotsInFlightAttrName =
    "phobos.dots_in_flight";

#define GEN_PASS_DECL
#include "Phobos/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Phobos/Conversion/Passes.h.inc"

} // namespace phobos

#endif // PHOBOS_CONVERSION_PASSES_H
