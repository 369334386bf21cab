//===- Diagnostics.cpp - Located errors for the Phobos front end ----------===//

#include "Phobos/Frontend/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"

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

std::pair<unsigned, unsigned>
Diagnostics::lineAndColumn(llvm::SMLoc loc) const {
  // SourceMgr::getLineAndColumn scans back to the line's start on every
  // call, which is quadratic in the length of a line (a kernel with
  // 100,000 parameters on one line); the line starts are found once here.
  llvm::StringRef buffer = getBuffer();
  if (lineStarts.empty()) {
    lineStarts.push_back(0);
    for (size_t i = 0; i < buffer.size(); ++i)
      if (buffer[i] == '\n')
        lineStarts.push_back(i + 1);
  }
  size_t offset = loc.getPointer() - buffer.data();
  if (loc.getPointer() < buffer.data() || offset > buffer.size())
    return sourceMgr.getLineAndColumn(loc, bufferId);
  auto next = llvm::upper_bound(lineStarts, offset);
  size_t line = next - lineStarts.begin();
  return {static_cast<unsigned>(line),
          static_cast<unsigned>(offset - *(next - 1) + 1)};
}

mlir::Location Diagnostics::location(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return mlir::FileLineColLoc::get(fileName, 0, 0);
  auto [line, col] = lineAndColumn(loc);
  return mlir::FileLineColLoc::get(fileName, line, col);
}

std::string Diagnostics::lineCol(llvm::SMLoc loc) const {
  auto [line, col] = lineAndColumn(loc);
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
