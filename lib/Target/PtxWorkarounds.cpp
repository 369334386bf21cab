//===- PtxWorkarounds.cpp - Rewrites around ptxas bugs --------------------===//

#include "Phobos/Target/PtxWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace phobos;

std::string phobos::rewriteIntegerNegations(llvm::StringRef ptx) {
  std::string result;
  result.reserve(ptx.size() + ptx.size() / 32);
  while (!ptx.empty()) {
    auto [line, rest] = ptx.split('\n');
    bool lastLine = rest.empty() && !ptx.ends_with("\n");
    ptx = rest;
    // "\t@%p1 neg.s32 \t%r7, %r14;": an optional guard, the opcode, then
    // "dst, src;".
    llvm::StringRef text = line.ltrim();
    llvm::StringRef guard;
    if (text.starts_with("@")) {
      auto [predicate, after] = text.split(' ');
      guard = predicate;
      text = after.ltrim();
    }
    llvm::StringRef width;
    for (llvm::StringRef bits : {"16", "32", "64"})
      if (text.starts_with(("neg.s" + bits).str()))
        width = bits;
    llvm::SmallVector<llvm::StringRef, 2> operands;
    if (!width.empty()) {
      llvm::StringRef args = text.drop_front(5 + width.size()).trim();
      if (args.consume_back(";"))
        llvm::SplitString(args, operands, ", \t");
    }
    if (operands.size() != 2) {
      result += line;
      if (!lastLine)
        result += '\n';
      continue;
    }
    std::string prefix = "\t" + (guard.empty() ? "" : guard.str() + " ");
    llvm::StringRef dst = operands[0], src = operands[1];
    result += prefix + "not.b" + width.str() + " \t" + dst.str() + ", " +
              src.str() + ";\n";
    result += prefix + "add.s" + width.str() + " \t" + dst.str() + ", " +
              dst.str() + ", 1;";
    if (!lastLine)
      result += '\n';
  }
  return result;
}
