//===- Json.cpp - JSON parsing with a bounded nesting depth ---------------===//

#include "Phobos/Support/Json.h"

using namespace phobos;

llvm::Expected<llvm::json::Value> phobos::parseJson(llvm::StringRef text,
                                                    unsigned maxDepth) {
  // Brackets inside strings do not nest; a string ends at an unescaped '"'.
  // Malformed input (an unterminated string, unbalanced brackets) is left to
  // the parser, which reports it without recursing deeper than this allows.
  unsigned depth = 0, line = 1, column = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "line %u, column %u: JSON nested deeper than %u levels", line,
            column, maxDepth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return llvm::json::parse(text);
}
