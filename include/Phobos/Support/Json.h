//===- Json.h - JSON parsing with a bounded nesting depth -------*- C++ -*-===//
//
// llvm::json::parse recurses once per nested array or object (and so does
// destroying the value it returns), so a file of a million '[' overflows the
// stack. Every JSON reader of Phobos (span maps, the kernel cache's
// manifests, tuning records, --grid-file, launch contracts) parses through
// parseJson, which scans the nesting depth first, without recursion, and
// refuses input deeper than a limit with the line and column where it goes
// too deep.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_SUPPORT_JSON_H
#define PHOBOS_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace phobos {

/// The deepest nesting of arrays and objects parseJson accepts. Phobos's own
/// files nest at most 4 levels.
inline constexpr unsigned kMaxJsonDepth = 256;

/// Parses `text` as llvm::json::parse does, but first refuses nesting deeper
/// than `maxDepth` with "line L, column C: JSON nested deeper than N levels".
llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                            unsigned maxDepth = kMaxJsonDepth);

} // namespace phobos

#endif // PHOBOS_SUPPORT_JSON_H
