//===- StageRecorder.h - The IR after every pass ----------------*- C++ -*-===//
//
// A pass instrumentation that prints the whole module after every pass of
// the pipeline (the pass managers' own adaptors excepted), with, for each
// printed line, the source line of the op printed there. Collectors that
// need the live IR at a point of the pipeline (the shared buffers' bank
// conflicts after tile-swizzle-shared, the layouts before the lowering)
// hook in before or after a pass by its CLI name; while they run, the op
// positions and value names of the latest print are those the page shows.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_VIZ_STAGERECORDER_H
#define PHOBOS_LIB_VIZ_STAGERECORDER_H

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/StringMap.h"

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace phobos::viz {

/// The module as printed after one pass.
struct PrintedStage {
  /// The pass's CLI name ("tile-assign-layouts"; "input" for the IR the
  /// pipeline starts from) and the op it ran on ("phobos.kernel").
  std::string pass, anchor;
  std::string text;
  /// `text` cut into lines (no line ends).
  std::vector<llvm::StringRef> lines;
  /// The source line of the op printed on each line; 0 where none is.
  std::vector<unsigned> sourceLines;
};

class StageRecorder : public mlir::PassInstrumentation {
public:
  /// The source line the page links an op at `loc` to (0: none).
  using SourceLineFn = std::function<unsigned(mlir::Location)>;
  /// A collector; `stage` is the index of the latest print.
  using Hook = std::function<void(mlir::ModuleOp module, unsigned stage)>;

  explicit StageRecorder(SourceLineFn sourceLine)
      : sourceLine(std::move(sourceLine)) {}

  /// Prints `module` as the stage `pass` ran on `anchor`.
  void record(mlir::ModuleOp module, llvm::StringRef pass,
              llvm::StringRef anchor);

  /// Runs `hook` before (after) the pass `pass` runs, every time it does.
  void before(llvm::StringRef pass, Hook hook) {
    hooksBefore[pass].push_back(std::move(hook));
  }
  void after(llvm::StringRef pass, Hook hook) {
    hooksAfter[pass].push_back(std::move(hook));
  }

  /// Of the latest print: the 1-based line `op` is printed on (0: not
  /// printed), and `value` as an operand ("%12", "%arg0").
  unsigned lineOf(mlir::Operation *op) const;
  std::string nameOf(mlir::Value value) const;
  /// The source line of `loc` as the page links it.
  unsigned sourceLineOf(mlir::Location loc) const { return sourceLine(loc); }

  /// Every print so far (a deque: the lines point into the texts).
  std::deque<PrintedStage> &getStages() { return stages; }

  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;

private:
  SourceLineFn sourceLine;
  std::deque<PrintedStage> stages;
  llvm::StringMap<std::vector<Hook>> hooksBefore, hooksAfter;
  /// The latest print's state: value names and op positions.
  std::unique_ptr<mlir::AsmState> state;
  mlir::AsmState::LocationMap positions;
};

} // namespace phobos::viz

#endif // PHOBOS_LIB_VIZ_STAGERECORDER_H
