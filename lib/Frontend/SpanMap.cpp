//===- SpanMap.cpp - Diagnostics at the place a program was written -------===//

#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Support/Json.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <tuple>

using namespace phobos::frontend;

static llvm::Error malformed(const llvm::Twine &what) {
  return llvm::createStringError("span map: " + what.str());
}

llvm::Expected<SpanMap> SpanMap::parse(llvm::StringRef json) {
  llvm::Expected<llvm::json::Value> value = phobos::parseJson(json);
  if (!value)
    return malformed(llvm::toString(value.takeError()));
  const llvm::json::Object *object = value->getAsObject();
  if (!object)
    return malformed("not a JSON object");
  if (object->getInteger("format") != 1)
    return malformed("unknown format (expected \"format\": 1)");
  SpanMap map;
  if (auto file = object->getString("python_file"))
    map.originalFile = file->str();
  else
    return malformed("missing \"python_file\"");
  if (auto source = object->getString("python_source"))
    map.originalSource = source->str();
  auto positive = [](const llvm::json::Value &v) -> std::optional<unsigned> {
    std::optional<int64_t> n = v.getAsInteger();
    if (!n || *n < 0 || *n > (1 << 30))
      return std::nullopt;
    return static_cast<unsigned>(*n);
  };
  if (const llvm::json::Array *fallback = object->getArray("default")) {
    if (fallback->size() != 2 || !positive((*fallback)[0]) ||
        !positive((*fallback)[1]))
      return malformed("\"default\" is not [line, col]");
    map.fallback = {*positive((*fallback)[0]), *positive((*fallback)[1])};
  }
  const llvm::json::Array *spans = object->getArray("spans");
  if (!spans)
    return malformed("missing \"spans\"");
  for (const llvm::json::Value &entry : *spans) {
    const llvm::json::Array *fields = entry.getAsArray();
    if (!fields || fields->size() != 5)
      return malformed("a span is not [gen_line, gen_col, length, line, col]");
    unsigned numbers[5];
    for (int i = 0; i < 5; ++i) {
      std::optional<unsigned> n = positive((*fields)[i]);
      if (!n)
        return malformed("a span holds a value that is not a small "
                         "non-negative integer");
      numbers[i] = *n;
    }
    map.spans.push_back(
        {numbers[0], numbers[1], numbers[2], numbers[3], numbers[4]});
  }
  std::sort(map.spans.begin(), map.spans.end(), [](const Span &a, const Span &b) {
    return std::tie(a.line, a.col, a.length, a.originalLine, a.originalCol) <
           std::tie(b.line, b.col, b.length, b.originalLine, b.originalCol);
  });
  return map;
}

llvm::Expected<SpanMap> SpanMap::readFile(llvm::StringRef path) {
  auto buffer = phobos::readRegularFile(path, phobos::kMaxInputFileBytes);
  if (!buffer)
    return llvm::createStringError("span map: " +
                                   llvm::toString(buffer.takeError()));
  llvm::Expected<SpanMap> map = parse((*buffer)->getBuffer());
  if (!map)
    return llvm::createStringError(
        "'" + path.str() + "': " + llvm::toString(map.takeError()));
  return map;
}

std::pair<unsigned, unsigned> SpanMap::lookup(unsigned line,
                                              unsigned col) const {
  const Span *inside = nullptr, *before = nullptr, *after = nullptr;
  for (const Span &span : spans) {
    if (span.line != line)
      continue;
    if (span.col <= col && col < span.col + span.length) {
      if (!inside || span.length < inside->length)
        inside = &span;
    } else if (span.col <= col) {
      if (!before || span.col >= before->col)
        before = &span;
    } else if (!after) {
      after = &span;
    }
  }
  const Span *best = inside ? inside : before ? before : after;
  if (!best)
    return fallback;
  return {best->originalLine, best->originalCol};
}

void SpanMap::relocate(mlir::Operation *root,
                       llvm::StringRef generatedFile) const {
  mlir::MLIRContext *context = root->getContext();
  auto generated = mlir::StringAttr::get(context, generatedFile);
  auto original = mlir::StringAttr::get(context, originalFile);
  mlir::AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](mlir::FileLineColLoc loc) -> std::optional<mlir::Location> {
        if (loc.getFilename() != generated)
          return std::nullopt;
        auto [line, col] = lookup(loc.getLine(), loc.getColumn());
        return mlir::FileLineColLoc::get(original, line, col);
      });
  // Nested locations too (a kernel's location holds the places of its
  // @aligned promises: KernelOp::withAlignedPromiseLocs).
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/false,
                                        /*replaceLocs=*/true,
                                        /*replaceTypes=*/false);
}

SpanMapDiagnosticHandler::SpanMapDiagnosticHandler(
    const SpanMap &map, std::string generatedFile, llvm::SourceMgr &sourceMgr,
    mlir::SourceMgrDiagnosticHandler &printer, mlir::MLIRContext *context)
    : ScopedDiagnosticHandler(context), map(map),
      generatedFile(std::move(generatedFile)) {
  originalFile = mlir::StringAttr::get(context, map.getOriginalFile());
  // The printer finds a file's lines among the manager's buffers first, so
  // the original text travels with the map (a notebook cell has no file).
  if (!map.getOriginalSource().empty())
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(map.getOriginalSource(),
                                             map.getOriginalFile()),
        llvm::SMLoc());
  setHandler([this, &printer](mlir::Diagnostic &diag) -> mlir::LogicalResult {
    bool changed = false;
    mlir::Location loc = mapLocation(diag.getLocation(), changed);
    if (!changed)
      return mlir::failure(); // not ours: the next handler prints it
    printer.emitDiagnostic(loc, diag.str(), diag.getSeverity());
    for (mlir::Diagnostic &note : diag.getNotes()) {
      bool noteChanged = false;
      mlir::Location noteLoc = mapLocation(note.getLocation(), noteChanged);
      printer.emitDiagnostic(noteLoc, note.str(), note.getSeverity());
    }
    return mlir::success();
  });
}

mlir::Location SpanMapDiagnosticHandler::mapLocation(mlir::Location loc,
                                                     bool &changed) const {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) {
    if (file.getFilename() != generatedFile)
      return loc;
    changed = true;
    auto [line, col] = map.lookup(file.getLine(), file.getColumn());
    return mlir::FileLineColLoc::get(originalFile, line, col);
  }
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc)) {
    mlir::Location child = mapLocation(name.getChildLoc(), changed);
    return changed ? mlir::Location(child) : loc;
  }
  if (auto call = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) {
    mlir::Location callee = mapLocation(call.getCallee(), changed);
    return changed ? mlir::Location(callee) : loc;
  }
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location inner : fused.getLocations()) {
      mlir::Location mapped = mapLocation(inner, changed);
      if (changed)
        return mapped;
    }
  }
  return loc;
}
