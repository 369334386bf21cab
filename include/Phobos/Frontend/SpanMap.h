//===- SpanMap.h - Diagnostics at the place a program was written -*- C++ -*-===//
//
// A Phobos program written by another front end (the Python package) comes
// with a span map: for each piece of the generated text, the file, line and
// column it was written at. With the map, every diagnostic the compiler or
// the interpreter reports in the generated text is printed at that place,
// with that file's line and a caret, never at the generated text.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_SPANMAP_H
#define PHOBOS_FRONTEND_SPANMAP_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace phobos::frontend {

/// Where each piece of a generated program came from. The JSON form
/// (format 1), as the Python package writes it:
///
///   {"format": 1, "python_file": "/abs/k.py", "python_source": "<text>",
///    "default": [line, col],
///    "spans": [[gen_line, gen_col, length, line, col], ...]}
///
/// Lines and columns are 1-based; columns count bytes. `python_source` is
/// optional (without it the file is read from disk when a line is shown).
class SpanMap {
public:
  /// A generated range and the original position it maps to.
  struct Span {
    unsigned line, col, length, originalLine, originalCol;
  };

  static llvm::Expected<SpanMap> parse(llvm::StringRef json);
  static llvm::Expected<SpanMap> readFile(llvm::StringRef path);

  /// The original position of generated `line:col`: the span that contains
  /// it (the shortest), else the closest one that starts before it on the
  /// line, else the one after it, else the map's default (the kernel).
  std::pair<unsigned, unsigned> lookup(unsigned line, unsigned col) const;

  /// Gives every op and block argument under `root` whose location is in
  /// `generatedFile` the original place instead (the front end does it to
  /// what it imports with a map, ImportOptions::spanMap), so that every
  /// later stage names the user's line by itself: the GPU's line info
  /// (`.loc` in the PTX, what compute-sanitizer and Nsight Compute show),
  /// the interpreter's run-time errors, the race check.
  void relocate(mlir::Operation *root, llvm::StringRef generatedFile) const;

  const std::string &getOriginalFile() const { return originalFile; }
  /// The original file's text; empty when the map does not carry it.
  const std::string &getOriginalSource() const { return originalSource; }

private:
  std::vector<Span> spans; ///< Sorted by (line, col).
  std::string originalFile;
  std::string originalSource;
  std::pair<unsigned, unsigned> fallback = {1, 1};
};

/// Prints every diagnostic located in `generatedFile` at its original place
/// (through `printer`, so with the original line and a caret); leaves the
/// others to the handlers registered before it. Register it after the
/// SourceMgrDiagnosticHandler it prints through.
class SpanMapDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  SpanMapDiagnosticHandler(const SpanMap &map, std::string generatedFile,
                           llvm::SourceMgr &sourceMgr,
                           mlir::SourceMgrDiagnosticHandler &printer,
                           mlir::MLIRContext *context);

  /// `loc` with every position in the generated file replaced by the
  /// original one; null when `loc` does not point into the generated file.
  mlir::Location mapLocation(mlir::Location loc, bool &changed) const;

private:
  const SpanMap &map;
  std::string generatedFile;
  mlir::StringAttr originalFile;
};

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_SPANMAP_H
