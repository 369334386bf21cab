//===- Tuning.h - The autotuning panel's data -------------------*- C++ -*-===//
//
// The search that chose among a kernel's @autotune variants, as phobos-tune
// reports it: a report file given with the page's options, or the record
// the tuning cache keeps for this source, kernel, dims and chip (what
// phobos-run and the Python package read to launch the winner).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_VIZ_TUNING_H
#define PHOBOS_LIB_VIZ_TUNING_H

#include "Phobos/Viz/Visualization.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

namespace phobos::viz {

/// The panel's data for kernel `kernel` of the program `source`:
///
///   {"from": "report" | "cache",
///    "record": {"chip", "general", "path"} (from the cache),
///    "report": the search's report (phobos-tune --json, normalised)}
///
/// or {"note": why there is none}. A report file that is not one, or is of
/// another kernel, is an error at that file; failure then.
mlir::FailureOr<llvm::json::Object>
describeTuning(llvm::StringRef source, llvm::StringRef kernel,
               const VisualizationOptions &options, mlir::MLIRContext *context);

} // namespace phobos::viz

#endif // PHOBOS_LIB_VIZ_TUNING_H
