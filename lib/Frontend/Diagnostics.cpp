//===- Diagnostics.cpp - Located errors for the Phobos front end ----------===//

#include "Phobos/Frontend/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"

using namespace phobos::frontend;

Diagnostics::Diagnostics(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                         unsigned bufferId)
    : sourceMgr(sourceMgr), context(context), bufferId(bufferId) {
  fileName = mlir::StringAttr::get(
      context, sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier());
}

llvm::StringRef Diagnostics::getBuffer() const {
  return sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
}

mlir::Location Diagnostics::location(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return mlir::FileLineColLoc::get(fileName, 0, 0);
  auto [line, col] = sourceMgr.getLineAndColumn(loc, bufferId);
  return mlir::FileLineColLoc::get(fileName, line, col);
}

std::string Diagnostics::lineCol(llvm::SMLoc loc) const {
  auto [line, col] = sourceMgr.getLineAndColumn(loc, bufferId);
  return std::to_string(line) + ":" + std::to_string(col);
}

mlir::InFlightDiagnostic Diagnostics::error(llvm::SMLoc loc) {
  ++errorCount;
  mlir::InFlightDiagnostic diag = mlir::emitError(location(loc));
  if (!variantNote.empty())
    diag.attachNote() << variantNote;
  return diag;
}

mlir::InFlightDiagnostic Diagnostics::warning(llvm::SMLoc loc) {
  return mlir::emitWarning(location(loc));
}
