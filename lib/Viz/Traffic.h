//===- Traffic.h - What one CTA read and wrote ------------------*- C++ -*-===//
//
// The memory-traffic panel: one CTA of the kernel, run on the interpreter
// (the reference semantics, before any layout) with seeded inputs, traced;
// for each op, the elements of each tensor it read, wrote or added to, as
// row-major runs, and how many of its slices' elements a mask left alone.
// And the grid view: the whole grid run with the race check, which CTA
// wrote each element and where CTAs race.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_VIZ_TRAFFIC_H
#define PHOBOS_LIB_VIZ_TRAFFIC_H

#include "StageRecorder.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Runtime/LaunchContract.h"
#include "Phobos/Viz/Visualization.h"

#include "llvm/Support/JSON.h"

#include <array>

namespace phobos::viz {

/// The panel's data for `kernel` (as the latest print of `recorder` shows
/// it) over `grid`:
///
///   {"cta": [x, y, z], "stage": the pass whose IR the lines are in,
///    "tensors": [{"name", "param", "shape", "element"}],
///    "accesses": [{"op", "line", "src", "tensor" (index in "tensors"),
///                  "kind": "read" | "write" | "atomic add",
///                  "count": elements, "runs": [[first, length], ...],
///                  "masked", "executions", "truncated" (when so),
///                  and where a mask left elements alone:
///                  "masked_elements": how many (each once),
///                  "box": {"origin", "shape"} (per axis: the region that
///                         holds the tensor and those elements),
///                  "masked_runs": [[first, length], ...] (row-major in
///                                 the box)}]}
///
/// or {"note": why there is none} (no grid, a run-time error, too much
/// memory).
llvm::json::Object describeTraffic(tile::KernelOp kernel,
                                   const LaunchContract &contract,
                                   std::optional<std::array<int64_t, 3>> grid,
                                   const VisualizationOptions &options,
                                   const StageRecorder &recorder,
                                   unsigned stage);

/// The grid view's data: the whole grid of `kernel` run on the interpreter
/// with the race check (the same seeded inputs), and for each tensor it
/// writes, which CTA wrote which elements:
///
///   {"grid": [X, Y, Z], "stage": the pass whose IR the lines are in,
///    "tensors": [{"name", "param", "shape", "element", "written": elements,
///                 "ctas": CTAs that wrote,
///                 "runs": [[first, length, CTA (x + X * (y + Y * z))], ...],
///                 "several": [[first, length], ...] (written or added to
///                            by more than one CTA),
///                 "raced": [[first, length], ...] (a race's elements),
///                 "omitted": why "runs" is left out (when so)}],
///    "races": [{"tensor" (index in "tensors"), "element": [i, ...],
///               "count", "first" and "second": {"access", "cta", "src"}}]}
///
/// or {"note": why there is none} (no grid, too much memory, a run-time
/// error or a run longer than VisualizationOptions::maxGridSteps).
llvm::json::Object
describeGridWrites(tile::KernelOp kernel, const LaunchContract &contract,
                   std::optional<std::array<int64_t, 3>> grid,
                   const VisualizationOptions &options,
                   const StageRecorder &recorder, unsigned stage);

} // namespace phobos::viz

#endif // PHOBOS_LIB_VIZ_TRAFFIC_H
