//===- StageRecorder.cpp - The IR after every pass ------------------------===//

#include "StageRecorder.h"

#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace phobos::viz;

/// The flags of every print: the form phobos-opt prints, without locations
/// (the page links lines to the source itself) and with large constants
/// elided, as they would be unreadable in a page.
static OpPrintingFlags printingFlags() {
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(64);
  return flags;
}

void StageRecorder::record(ModuleOp module, StringRef pass, StringRef anchor) {
  PrintedStage &stage = stages.emplace_back();
  stage.pass = pass.str();
  stage.anchor = anchor.str();
  state.reset();
  positions.clear();
  state = std::make_unique<AsmState>(module, printingFlags(), &positions);
  {
    llvm::raw_string_ostream os(stage.text);
    module->print(os, *state);
  }
  llvm::SmallVector<StringRef> lines;
  StringRef(stage.text).split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  if (lines.size() > 1 && lines.back().empty())
    lines.pop_back();
  stage.lines.assign(lines.begin(), lines.end());
  stage.sourceLines.assign(stage.lines.size(), 0);
  // The printer counts lines from 1. A module stands for no source
  // construct (its location is the file's start).
  for (auto &[op, position] : positions) {
    if (isa<ModuleOp>(op))
      continue;
    unsigned line = position.first;
    if (line >= 1 && line <= stage.sourceLines.size() &&
        !stage.sourceLines[line - 1])
      stage.sourceLines[line - 1] = sourceLine(op->getLoc());
  }
}

unsigned StageRecorder::lineOf(Operation *op) const {
  auto it = positions.find(op);
  return it == positions.end() ? 0 : it->second.first;
}

std::string StageRecorder::nameOf(Value value) const {
  std::string name;
  llvm::raw_string_ostream os(name);
  if (state)
    value.printAsOperand(os, *state);
  else
    value.printAsOperand(os, printingFlags());
  return name;
}

/// The pass managers' adaptors (which run a nested pipeline on each op of a
/// kind) are passes too, without a CLI name; their class is private to MLIR.
static bool isAdaptor(Pass *pass) {
  return pass->getArgument().empty() &&
         pass->getName().contains("OpToOpPassAdaptor");
}

static ModuleOp topModule(Operation *op) {
  while (Operation *parent = op->getParentOp())
    op = parent;
  return dyn_cast<ModuleOp>(op);
}

void StageRecorder::runBeforePass(Pass *pass, Operation *op) {
  if (isAdaptor(pass))
    return;
  auto it = hooksBefore.find(pass->getArgument());
  if (it == hooksBefore.end())
    return;
  if (ModuleOp module = topModule(op))
    for (Hook &hook : it->second)
      hook(module, stages.size() - 1);
}

void StageRecorder::runAfterPass(Pass *pass, Operation *op) {
  if (isAdaptor(pass))
    return;
  ModuleOp module = topModule(op);
  if (!module)
    return;
  StringRef name = pass->getArgument();
  record(module, name.empty() ? pass->getName() : name,
         op->getName().getStringRef());
  auto it = hooksAfter.find(name);
  if (it != hooksAfter.end())
    for (Hook &hook : it->second)
      hook(module, stages.size() - 1);
}
