/*===-- phobos-c/Dialects.h - C API of the phobos dialect --------*- C -*-===*\
|*                                                                            *|
|* Registration of the phobos tile dialect and its passes, and the tile type, *|
|* for compilers and bindings written against MLIR's C API.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PHOBOS_C_DIALECTS_H
#define PHOBOS_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// mlirGetDialectHandle__phobos__(): the `phobos` dialect.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Phobos, phobos);

/// Registers every dialect the Phobos pipeline uses (phobos, arith, scf,
/// gpu, nvvm, llvm, ...) with `registry`.
MLIR_CAPI_EXPORTED void phobosRegisterAllDialects(MlirDialectRegistry registry);

/// Registers the Phobos passes and pipelines (`--phobos-to-nvvm`) and the
/// upstream passes they use, for textual pass pipelines.
MLIR_CAPI_EXPORTED void phobosRegisterAllPasses(void);

/// Whether `type` is a `!phobos.tile`.
MLIR_CAPI_EXPORTED bool phobosTypeIsATile(MlirType type);

/// `!phobos.tile<shape x element>` without a layout, or a null type (after
/// a diagnostic at `location`) when the shape or element type is invalid.
MLIR_CAPI_EXPORTED MlirType phobosTileTypeGetChecked(MlirLocation location,
                                                     intptr_t rank,
                                                     const int64_t *shape,
                                                     MlirType elementType);

/// The rank, an extent, the element type and the layout (a null attribute
/// when it has none) of a `!phobos.tile`.
MLIR_CAPI_EXPORTED intptr_t phobosTileTypeGetRank(MlirType type);
MLIR_CAPI_EXPORTED int64_t phobosTileTypeGetDimSize(MlirType type,
                                                    intptr_t dim);
MLIR_CAPI_EXPORTED MlirType phobosTileTypeGetElementType(MlirType type);
MLIR_CAPI_EXPORTED MlirAttribute phobosTileTypeGetLayout(MlirType type);

#ifdef __cplusplus
}
#endif

#endif /* PHOBOS_C_DIALECTS_H */
