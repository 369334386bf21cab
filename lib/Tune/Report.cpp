//===- Report.cpp - The autotuner's table and JSON ------------------------===//

#include "Phobos/Tune/Tuner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

using namespace phobos;
using namespace phobos::tune;

static llvm::StringRef statusName(VariantResult::Status status) {
  switch (status) {
  case VariantResult::Status::Pending: return "pending";
  case VariantResult::Status::Pruned: return "pruned";
  case VariantResult::Status::CompileError: return "compile error";
  case VariantResult::Status::Failed: return "failed";
  case VariantResult::Status::Wrong: return "wrong";
  case VariantResult::Status::Ok: return "ok";
  }
  return "pending";
}

static std::optional<VariantResult::Status> parseStatus(llvm::StringRef name) {
  for (auto status :
       {VariantResult::Status::Pending, VariantResult::Status::Pruned,
        VariantResult::Status::CompileError, VariantResult::Status::Failed,
        VariantResult::Status::Wrong, VariantResult::Status::Ok})
    if (statusName(status) == name)
      return status;
  return std::nullopt;
}

/// The results in table order: the timed ones fastest first, then the
/// others in the order of the space.
static std::vector<size_t> tableOrder(const Report &report) {
  std::vector<size_t> order(report.results.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const VariantResult &x = report.results[a], &y = report.results[b];
    bool timedX = x.timeMs >= 0, timedY = y.timeMs >= 0;
    if (timedX != timedY)
      return timedX;
    return timedX && x.timeMs < y.timeMs;
  });
  return order;
}

void Report::printTable(llvm::raw_ostream &os) const {
  std::string dimsText;
  for (auto &entry : dims)
    dimsText += " " + entry.getKey().str() + "=" + std::to_string(entry.getValue());
  std::vector<std::string> dimNames;
  os << "phobos-tune " << kernel << " (" << file << ") on " << backend;
  if (!dimsText.empty())
    os << "," << dimsText;
  os << "\n";
  size_t timed = 0, pruned = 0, wrong = 0, broken = 0, cached = 0;
  for (const VariantResult &result : results) {
    timed += result.timeMs >= 0;
    pruned += result.status == VariantResult::Status::Pruned;
    wrong += result.status == VariantResult::Status::Wrong;
    broken += result.status == VariantResult::Status::CompileError ||
              result.status == VariantResult::Status::Failed;
    cached += result.cached;
  }
  if (fromCache)
    os << "from the tuning cache (tuned " << date << "; no search: --force "
       << "searches again)\n";
  os << llvm::formatv("{0} variants: {1} timed, {2} pruned, {3} wrong, {4} "
                      "failed; checked with {5}; {6:f1} s ({7:f1} s compiling "
                      "on {8} threads, {9} from the kernel cache)\n",
                      results.size(), timed, pruned, wrong, broken, checkedWith,
                      wallSeconds, compileSeconds, jobs, cached);
  // Where compile time went, for the variants compiled in this search.
  std::vector<const VariantResult *> compiled;
  for (const VariantResult &result : results)
    if (!result.cached && result.passesMs > 0)
      compiled.push_back(&result);
  if (!compiled.empty()) {
    auto medianOf = [&](double VariantResult::*field) {
      std::vector<double> values;
      for (const VariantResult *result : compiled)
        values.push_back(result->*field);
      std::sort(values.begin(), values.end());
      return values[values.size() / 2];
    };
    os << llvm::formatv("compile per variant, median of {0}: {1:f0} ms = front "
                        "end {2:f0} + MLIR passes {3:f0} + LLVM/NVPTX {4:f0} + "
                        "ptxas {5:f0}\n",
                        compiled.size(), medianOf(&VariantResult::compileMs),
                        medianOf(&VariantResult::frontendMs),
                        medianOf(&VariantResult::passesMs),
                        medianOf(&VariantResult::llvmMs),
                        medianOf(&VariantResult::ptxasMs));
  }
  size_t width = 7;
  for (const VariantResult &result : results)
    width = std::max(width, variantText(result.variant).size());
  os << llvm::formatv("  {0}  {1,10}  {2,7}  {3,11}  {4,4}  {5,5}  {6,8}  {7,10}  "
                      "status\n",
                      llvm::left_justify("variant", width),
                      "time (ms)", "vs best", "max rel err", "regs", "spill",
                      "smem KiB", "compile ms");
  double bestMs = best >= 0 ? results[best].timeMs : -1;
  for (size_t index : tableOrder(*this)) {
    const VariantResult &result = results[index];
    auto number = [](double value, const char *format) -> std::string {
      return value >= 0 ? llvm::formatv(format, value).str() : std::string("-");
    };
    std::string status;
    if (result.status == VariantResult::Status::Ok)
      status = static_cast<int>(index) == best ? "best" : "ok";
    else
      status = (statusName(result.status) + ": " +
                llvm::StringRef(result.reason).split('\n').first)
                   .str();
    std::string error =
        result.maxRelErr < 0 ? "-"
        : std::isinf(result.maxRelErr)
            ? "inf"
            : llvm::formatv("{0:e1}", result.maxRelErr).str();
    std::string compile =
        result.cached ? "cached" : number(result.compileMs, "{0:f0}");
    os << llvm::formatv(
        "  {0}  {1,10}  {2,7}  {3,11}  {4,4}  {5,5}  {6,8}  {7,10}  {8}\n",
        llvm::left_justify(variantText(result.variant), width),
        number(result.timeMs, "{0:f4}"),
        result.timeMs >= 0 && bestMs > 0
            ? llvm::formatv("{0:f2}x", result.timeMs / bestMs).str()
            : std::string("-"),
        error, result.registers >= 0 ? std::to_string(result.registers) : "-",
        result.spillBytes >= 0 ? std::to_string(result.spillBytes) : "-",
        result.sharedBytes >= 0
            ? llvm::formatv("{0:f1}", result.sharedBytes / 1024.0).str()
            : std::string("-"),
        compile, status);
  }
  if (best >= 0)
    os << "best: " << variantText(results[best].variant) << "  "
       << llvm::format("%.4f", results[best].timeMs) << " ms\n";
  else if (backend == "compile only")
    os << llvm::count_if(results,
                         [](const VariantResult &result) {
                           return result.status == VariantResult::Status::Ok;
                         })
       << " of " << results.size() << " variants compiled\n";
  else
    os << "no variant passed\n";
  if (!specialized.empty()) {
    os << "variants specialised for the extents, as phobos-run launches them:";
    for (const auto &[name, multiple] : specialized)
      os << " " << name << " % " << multiple << " == 0";
    os << "\n";
  }
}

llvm::json::Value Report::toJSON() const {
  llvm::json::Array variants;
  for (const VariantResult &result : results) {
    llvm::json::Object variant;
    for (auto &[name, value] : result.variant)
      variant[name] = value;
    llvm::json::Array samples;
    for (double sample : result.samplesMs)
      samples.push_back(sample);
    auto number = [](double value) -> llvm::json::Value {
      if (value < 0)
        return nullptr;
      return std::isfinite(value) ? llvm::json::Value(value)
                                  : llvm::json::Value("inf");
    };
    variants.push_back(llvm::json::Object{
        {"variant", std::move(variant)},
        {"status", statusName(result.status)},
        {"reason", result.reason},
        {"time_ms", number(result.timeMs)},
        {"ratio_to_best",
         best >= 0 && result.timeMs >= 0
             ? llvm::json::Value(result.timeMs / results[best].timeMs)
             : llvm::json::Value(nullptr)},
        {"samples_ms", std::move(samples)},
        {"max_rel_err", number(result.maxRelErr)},
        {"cached", result.cached},
        {"compile_ms",
         llvm::json::Object{{"front_end", result.frontendMs},
                            {"mlir_passes", result.passesMs},
                            {"llvm_nvptx", result.llvmMs},
                            {"ptxas", result.ptxasMs},
                            {"total", result.compileMs}}},
        {"shared_bytes", result.sharedBytes},
        {"registers", result.registers},
        {"spill_bytes", result.spillBytes}});
  }
  llvm::json::Object dimsObject;
  // An owned key: the JSON may outlive this report.
  for (auto &entry : dims)
    dimsObject[entry.getKey().str()] = entry.getValue();
  llvm::json::Array order;
  for (const std::string &name : variantOrder)
    order.push_back(name);
  llvm::json::Value bestVariant = nullptr;
  if (best >= 0) {
    llvm::json::Object variant;
    for (auto &[name, value] : results[best].variant)
      variant[name] = value;
    bestVariant = std::move(variant);
  }
  return llvm::json::Object{{"kernel", kernel},
                            {"file", file},
                            {"chip", chip},
                            {"device", device},
                            {"backend", backend},
                            {"checked_with", checkedWith},
                            {"dims", std::move(dimsObject)},
                            {"specialized", [&] {
                               llvm::json::Object object;
                               for (const auto &[name, multiple] : specialized)
                                 object[name] = multiple;
                               return object;
                             }()},
                            {"variant_order", std::move(order)},
                            {"best", best},
                            {"best_variant", std::move(bestVariant)},
                            {"from_cache", fromCache},
                            {"wall_s", wallSeconds},
                            {"compile_s", compileSeconds},
                            {"jobs", jobs},
                            {"date", date},
                            {"variants", std::move(variants)}};
}

llvm::Expected<Report> Report::fromJSON(const llvm::json::Value &json) {
  const llvm::json::Object *object = json.getAsObject();
  if (!object)
    return llvm::createStringError("a tuning report is a JSON object");
  Report report;
  auto text = [&](llvm::StringRef key) {
    return object->getString(key).value_or("").str();
  };
  report.kernel = text("kernel");
  report.file = text("file");
  report.chip = text("chip");
  report.device = text("device");
  report.backend = text("backend");
  report.checkedWith = text("checked_with");
  report.date = text("date");
  report.best = object->getInteger("best").value_or(-1);
  report.fromCache = object->getBoolean("from_cache").value_or(false);
  report.wallSeconds = object->getNumber("wall_s").value_or(0);
  report.compileSeconds = object->getNumber("compile_s").value_or(0);
  report.jobs = object->getInteger("jobs").value_or(0);
  if (const llvm::json::Object *dims = object->getObject("dims"))
    for (const auto &[name, value] : *dims)
      report.dims[name] = value.getAsInteger().value_or(0);
  if (const llvm::json::Object *promises = object->getObject("specialized"))
    for (const auto &[name, value] : *promises)
      report.specialized.emplace_back(name.str(), value.getAsInteger().value_or(1));
  llvm::sort(report.specialized);
  if (const llvm::json::Array *order = object->getArray("variant_order"))
    for (const llvm::json::Value &name : *order)
      report.variantOrder.push_back(name.getAsString().value_or("").str());
  const llvm::json::Array *variants = object->getArray("variants");
  if (!variants)
    return llvm::createStringError("a tuning report lists its variants");
  auto number = [](const llvm::json::Object &from, llvm::StringRef key) {
    const llvm::json::Value *value = from.get(key);
    if (!value || value->kind() == llvm::json::Value::Null)
      return -1.0;
    if (value->getAsString() == "inf")
      return static_cast<double>(INFINITY);
    return value->getAsNumber().value_or(-1.0);
  };
  for (const llvm::json::Value &entry : *variants) {
    const llvm::json::Object *row = entry.getAsObject();
    if (!row)
      return llvm::createStringError("a variant of a tuning report is an object");
    VariantResult result;
    if (const llvm::json::Object *variant = row->getObject("variant"))
      for (const std::string &name : report.variantOrder)
        if (std::optional<int64_t> value = variant->getInteger(name))
          result.variant.emplace_back(name, *value);
    result.status = parseStatus(row->getString("status").value_or(""))
                        .value_or(VariantResult::Status::Pending);
    result.reason = row->getString("reason").value_or("").str();
    result.timeMs = number(*row, "time_ms");
    result.maxRelErr = number(*row, "max_rel_err");
    result.cached = row->getBoolean("cached").value_or(false);
    if (const llvm::json::Array *samples = row->getArray("samples_ms"))
      for (const llvm::json::Value &sample : *samples)
        result.samplesMs.push_back(sample.getAsNumber().value_or(0));
    if (const llvm::json::Object *compile = row->getObject("compile_ms")) {
      result.frontendMs = number(*compile, "front_end");
      result.passesMs = number(*compile, "mlir_passes");
      result.llvmMs = number(*compile, "llvm_nvptx");
      result.ptxasMs = number(*compile, "ptxas");
      result.compileMs = number(*compile, "total");
    }
    result.sharedBytes = row->getInteger("shared_bytes").value_or(-1);
    result.registers = row->getInteger("registers").value_or(-1);
    result.spillBytes = row->getInteger("spill_bytes").value_or(-1);
    report.results.push_back(std::move(result));
  }
  // A damaged record must not index outside the results.
  if (report.best < 0 || report.best >= static_cast<int>(report.results.size()))
    report.best = -1;
  return report;
}
