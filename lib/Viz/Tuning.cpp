//===- Tuning.cpp - The autotuning panel's data ---------------------------===//

#include "Tuning.h"

#include "Phobos/Runtime/TuningCache.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/Support/Json.h"
#include "Phobos/Tune/Tuner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
using namespace phobos;
using namespace phobos::viz;
using llvm::json::Object;

FailureOr<Object>
phobos::viz::describeTuning(StringRef source, StringRef kernel,
                            const VisualizationOptions &options,
                            MLIRContext *context) {
  if (!options.tuningReportText.empty()) {
    Location at = FileLineColLoc::get(context, options.tuningReportFile, 1, 1);
    llvm::Expected<llvm::json::Value> json =
        parseJson(options.tuningReportText);
    if (!json) {
      emitError(at) << "not a tuning report (phobos-tune --json): "
                    << llvm::toString(json.takeError());
      return failure();
    }
    llvm::Expected<tune::Report> report = tune::Report::fromJSON(*json);
    if (!report) {
      emitError(at) << "not a tuning report (phobos-tune --json): "
                    << llvm::toString(report.takeError());
      return failure();
    }
    if (report->kernel != kernel) {
      emitError(at) << "the tuning report is of kernel '" << report->kernel
                    << "', not '" << kernel << "'";
      return failure();
    }
    return Object{{"from", "report"}, {"report", report->toJSON()}};
  }
  if (options.cacheDir.empty())
    return Object{{"note", "no tuning report given, and no tuning cache"}};

  // The record a launch of these dims would read: on the page's chip (the
  // device's sm_90a for sm_90), else on the interpreter; of the kernels
  // specialised for the extents, else of the general ones.
  TuningKey key;
  key.source = source.str();
  key.kernel = kernel.str();
  for (const auto &entry : options.dims)
    key.dims.emplace_back(entry.getKey().str(), entry.getValue());
  llvm::SmallVector<std::string, 3> chips = {options.chip};
  std::string device = chipForCapability(9, 0);
  if (options.chip == "sm_90" && device != options.chip)
    chips.push_back(device);
  chips.push_back("interpreter");
  TuningCache cache(options.cacheDir);
  for (const std::string &chip : chips)
    for (bool general : {false, true}) {
      if (general && chip == "interpreter")
        continue;
      key.chip = chip;
      key.general = general;
      std::optional<llvm::json::Object> record = cache.lookup(key);
      if (!record)
        continue;
      const llvm::json::Value *stored = record->get("report");
      llvm::Expected<tune::Report> report =
          stored ? tune::Report::fromJSON(*stored)
                 : llvm::Expected<tune::Report>(llvm::createStringError(
                       "the record keeps no report"));
      if (!report)
        return Object{{"note", "the tuning cache's record for " +
                                   key.dimsText() + " on " + chip +
                                   " has no readable report: " +
                                   llvm::toString(report.takeError())}};
      return Object{{"from", "cache"},
                    {"record",
                     Object{{"chip", chip},
                            {"general", general},
                            {"path", cache.recordPath(key.digest())}}},
                    {"report", report->toJSON()}};
    }
  std::string dims = key.dimsText();
  return Object{{"note", "no search of this source and kernel " +
                             (dims.empty() ? std::string("without dims")
                                           : "for " + dims) +
                             " in the tuning cache " + options.cacheDir +
                             " (phobos-tune with the same dims writes one)"}};
}
