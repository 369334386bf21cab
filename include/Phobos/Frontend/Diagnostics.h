//===- Diagnostics.h - Located errors for the Phobos front end --*- C++ -*-===//
//
// The front end reports through MLIR's diagnostic engine, with a
// FileLineColLoc made from the source position, so that every tool prints
// `file:line:col: error: message`, the source line and a caret, and so that
// lit tests can check diagnostics with -verify-diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_DIAGNOSTICS_H
#define PHOBOS_FRONTEND_DIAGNOSTICS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <vector>

namespace phobos::frontend {

/// Turns source positions into MLIR locations and counts errors.
class Diagnostics {
public:
  Diagnostics(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
              unsigned bufferId);

  /// The location of `loc` in the source buffer.
  mlir::Location location(llvm::SMLoc loc) const;

  mlir::InFlightDiagnostic error(llvm::SMLoc loc);
  mlir::InFlightDiagnostic warning(llvm::SMLoc loc);

  /// `line:col` of `loc`, for messages that point at a second place.
  std::string lineCol(llvm::SMLoc loc) const;

  /// A note attached to every later error, such as "in variant TM=64";
  /// empty for none.
  void setVariantContext(std::string note) { variantNote = std::move(note); }

  bool hadError() const { return errorCount > 0; }
  unsigned getErrorCount() const { return errorCount; }
  mlir::MLIRContext *getContext() const { return context; }
  llvm::StringRef getBuffer() const;

private:
  /// 1-based line and column of `loc` in the buffer.
  std::pair<unsigned, unsigned> lineAndColumn(llvm::SMLoc loc) const;

  llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext *context;
  unsigned bufferId;
  mlir::StringAttr fileName;
  unsigned errorCount = 0;
  std::string variantNote;
  /// Offsets at which the buffer's lines start (filled on first use).
  mutable std::vector<size_t> lineStarts;
};

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_DIAGNOSTICS_H
