//===- Traffic.h - What one CTA read and wrote ------------------*- C++ -*-===//
//
// The memory-traffic panel: one CTA of the kernel, run on the interpreter
// (the reference semantics, before any layout) with seeded inputs, traced;
// for each op, the elements of each tensor it read, wrote or added to, as
// row-major runs, and how many of its slices' elements a mask left alone.
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
///                  "masked", "executions", "truncated" (when so)}]}
///
/// or {"note": why there is none} (no grid, a run-time error, too much
/// memory).
llvm::json::Object describeTraffic(tile::KernelOp kernel,
                                   const LaunchContract &contract,
                                   std::optional<std::array<int64_t, 3>> grid,
                                   const VisualizationOptions &options,
                                   const StageRecorder &recorder,
                                   unsigned stage);

} // namespace phobos::viz

#endif // PHOBOS_LIB_VIZ_TRAFFIC_H
