//===- phobos-fuzz-frontend.cpp - libFuzzer target over the front end -----===//
//
// Feeds arbitrary bytes to the whole front end (lexer, parser, Sema,
// MLIRGen) and the dialect verifier. Any input may be rejected with
// diagnostics; none may crash, hang or produce IR that fails to verify or
// to parse back after printing.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    phobos::registerAllDialects(*r);
    return r;
  }();
  // A fresh context per input keeps uniqued names from piling up.
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler silence(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.ph"),
      llvm::SMLoc());
  phobos::frontend::ImportOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      phobos::frontend::importPhobos(sourceMgr, &context, options);
  if (!module)
    return 0;

  // What the front end accepted must print and parse back.
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  mlir::ParserConfig config(&context);
  if (!mlir::parseSourceString<mlir::ModuleOp>(text, config)) {
    llvm::errs() << "accepted input printed IR that does not parse:\n" << text;
    std::abort();
  }
  return 0;
}
