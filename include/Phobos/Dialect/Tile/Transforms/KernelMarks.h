//===- KernelMarks.h - What tile passes tell lib/Driver --------*- C++ -*-===//
//
// Attributes a tile pass leaves on a kernel for lib/Driver to read after
// the lowering (which carries them to the gpu.func). No generated code, so
// that lib/Driver need not depend on the passes' declarations.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_TRANSFORMS_KERNELMARKS_H
#define PHOBOS_DIALECT_TILE_TRANSFORMS_KERNELMARKS_H

#include "llvm/ADT/StringRef.h"

namespace phobos::tile {

/// On a kernel whose loops stage a tile in shared memory through registers
/// where asynchronous copies could move it (tile-async-staging's
/// `mark-only`), so that lib/Driver knows the pipeline's `async-staging`
/// would give other code.
inline constexpr llvm::StringLiteral kRegisterStagingAttrName =
    "phobos.register_staging";

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_TRANSFORMS_KERNELMARKS_H
