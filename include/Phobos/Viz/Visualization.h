//===- Visualization.h - One page that shows a kernel -----------*- C++ -*-===//
//
// The visualizer (phobos-viz, docs/debugging.md "The visualizer"): one
// self-contained HTML page for a kernel, a variant and a problem, built from
// one JSON object. buildVisualization compiles the variant through the same
// pipeline every tool runs (buildPhobosToNVVMPipeline) with a recorder of
// the IR after each pass, and collects the data of each panel:
//
//   {"format": 1, "kernel": "saxpy", "variant": [["BLOCK", 16]],
//    "chip": "sm_90", "dims": {"N": 1000}, "grid": [63, 1, 1],
//    "warps": 4, "shared_bytes": 0,
//    "source": {"file", "language": "phobos" | "python", "lines": [...],
//               "hidden": [1-based lines the code panel hides (@cluster)]},
//    "passes": [{"pass", "anchor", "lines", "text" (the first, and the
//                first after an omitted one) |
//                "edits": [["=", n] | ["-", n] | ["+", [lines]]] |
//                "omitted": true (more than maxIrLines lines),
//                "changed", "added", "removed",
//                "src": [source line of each IR line, 0: none]
//                       (where it differs from the stage before)}],
//    "layouts": {"stage": index of the pass whose IR they are in,
//                "values": [{"name", "op", "line", "src", "layout"}],
//                "layouts": [describeTileLayout (Layouts.h)]},
//    "shared": {"stage", "buffers": [describeSharedBuffer + "name", "op",
//               "line", "src", "conflicts" (describeBankConflicts)]},
//    "traffic": {"cta", "stage", "tensors", "accesses": [the elements of
//                each tensor each op of the CTA touched]} (lib/Viz/Traffic.h),
//    "tuning": {"from": "report" | "cache", "record", "report": the
//               search's report (phobos-tune --json)} (lib/Viz/Tuning.h),
//    "cluster": {"nodes", "tensors", "leaves", "instructions": [each
//                node's, with its DAG level], "links", "node_totals",
//                "summary"} (lib/Viz/Cluster.h),
//    "writes": {"grid", "stage", "tensors": [which CTA wrote each element
//               of each written tensor, the elements several wrote, those
//               that raced], "races": [the race check's]} (Traffic.h),
//    "missing": [what the page does not show yet]}
//
// writeVisualizationPage puts it into the page (Page.cpp); the two are
// apart so that tests check the data without a browser.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_VIZ_VISUALIZATION_H
#define PHOBOS_VIZ_VISUALIZATION_H

#include "Phobos/Viz/Layouts.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace phobos::frontend {
class SpanMap;
} // namespace phobos::frontend

namespace phobos::viz {

/// The version of the page's JSON; raised when a field changes meaning.
inline constexpr int64_t kFormatVersion = 1;

/// The grid view's defaults: about three seconds of the interpreter, and
/// at most about 1.3 MB of the page per tensor.
inline constexpr uint64_t kDefaultMaxGridSteps = uint64_t(1) << 25;
inline constexpr int64_t kDefaultMaxWriteRuns = 65536;

/// Which kernel, variant and problem a page shows, and how much of it.
struct VisualizationOptions {
  /// The kernel; empty where the file has only one.
  std::string kernel;
  /// @autotune values; the others take their first.
  llvm::StringMap<int64_t> variant;
  /// Launch extents: the grid, and the kernel specialised for them as
  /// phobos-run compiles it (specializeAlignment).
  llvm::StringMap<int64_t> dims;
  std::string chip = "sm_90";
  /// The map of a generated program (the Python package's): the code
  /// panel shows the original file and every op links to its line there.
  const frontend::SpanMap *spanMap = nullptr;
  /// The CTA whose memory traffic the page shows (block x, y, z), and
  /// the scalars of that run (the others: floats seeded in [0.5, 1.5),
  /// integers 1, as phobos-run gives them).
  std::array<int64_t, 3> cta = {0, 0, 0};
  llvm::StringMap<double> scalars;
  /// The launch grid; unset: the one the launch contract infers from
  /// `dims`.
  std::optional<std::array<int64_t, 3>> grid;
  /// Elements of a tile or buffer past which its grid is left out.
  int64_t maxGridElements = kDefaultMaxGridElements;
  /// Interpreter steps the grid view's run of the whole grid may take
  /// (about 100 ns each); past them it says so.
  uint64_t maxGridSteps = kDefaultMaxGridSteps;
  /// Runs of elements written by one CTA past which the grid view leaves a
  /// tensor's map out (a run is about 20 bytes of the page).
  int64_t maxWriteRuns = kDefaultMaxWriteRuns;
  /// A search's report (what phobos-tune --json writes) for the autotuning
  /// panel, and its file's name for messages; empty: the tuning cache's
  /// record at `cacheDir` for this source, kernel, dims and chip, if any.
  std::string tuningReportText, tuningReportFile;
  /// The kernel cache's root, where the tuning records are (empty: none is
  /// looked up).
  std::string cacheDir;
  /// The cluster panel: the plan phobos-sched --plan JOB --json wrote, and
  /// after a run its --summary-json, with their files' names for messages
  /// (empty: no panel).
  std::string clusterPlanText, clusterPlanFile;
  std::string clusterSummaryText, clusterSummaryFile;
  /// Or a job the page plans itself, as phobos-sched --plan JOB does: the
  /// job file's text and name (its source must be this page's file), and
  /// the planner's options (Planning.h, PlanOptions).
  struct ClusterJob {
    std::string text, file;
    int64_t nodes = 1;
    /// A node's memory in bytes; 0: no limit.
    int64_t vramBytes = 0;
    /// @cluster sizes given; the others take their first value.
    llvm::StringMap<int64_t> sizes;
    /// Every node loads its own input super-tiles (Ingest::Direct) rather
    /// than fetching them from the node that loaded them.
    bool directIngest = false;
  } clusterJob;
  /// Lines of IR past which a pass is listed by its counts alone (0: no
  /// limit): the per-thread IR after convert-tile-to-gpu is most of a
  /// page's bytes.
  size_t maxIrLines = 0;
  /// Changed lines past which a pass's diff is one replacement (LineDiff.h).
  size_t maxDiffEdits = 4000;
};

/// The page's data for the main buffer of `sourceMgr`. Errors (at the
/// user's lines) go to `context`'s diagnostic handler; the context needs the
/// dialects registerAllDialects adds.
mlir::FailureOr<llvm::json::Value>
buildVisualization(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                   const VisualizationOptions &options);

/// The self-contained page (scripts, styles and `data` inline).
void writeVisualizationPage(const llvm::json::Value &data,
                            llvm::raw_ostream &os);

} // namespace phobos::viz

#endif // PHOBOS_VIZ_VISUALIZATION_H
