//===- Dialects.cpp - C API of the phobos dialect -------------------------===//

#include "phobos-c/Dialects.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/InitAllPasses.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

using namespace phobos::tile;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Phobos, phobos, TileDialect)

void phobosRegisterAllDialects(MlirDialectRegistry registry) {
  phobos::registerAllDialects(*unwrap(registry));
}

void phobosRegisterAllPasses() { phobos::registerAllPasses(); }

bool phobosTypeIsATile(MlirType type) { return llvm::isa<TileType>(unwrap(type)); }

MlirType phobosTileTypeGetChecked(MlirLocation location, intptr_t rank,
                                  const int64_t *shape, MlirType elementType) {
  mlir::Location loc = unwrap(location);
  return wrap(TileType::getChecked(
      [&] { return mlir::emitError(loc); }, loc.getContext(),
      llvm::ArrayRef<int64_t>(shape, rank), unwrap(elementType),
      mlir::Attribute()));
}

intptr_t phobosTileTypeGetRank(MlirType type) {
  return llvm::cast<TileType>(unwrap(type)).getRank();
}

int64_t phobosTileTypeGetDimSize(MlirType type, intptr_t dim) {
  return llvm::cast<TileType>(unwrap(type)).getDimSize(dim);
}

MlirType phobosTileTypeGetElementType(MlirType type) {
  return wrap(llvm::cast<TileType>(unwrap(type)).getElementType());
}

MlirAttribute phobosTileTypeGetLayout(MlirType type) {
  return wrap(llvm::cast<TileType>(unwrap(type)).getEncoding());
}
