//===- Compiler.cpp - C API of the Phobos front door ----------------------===//
//
// Thin wrappers over phobos::Session (include/Phobos/Driver/Session.h): the
// handles own C++ objects, strings point into them.
//
//===----------------------------------------------------------------------===//

#include "phobos-c/Compiler.h"

#include "Wrap.h"

#include "Phobos/Driver/Session.h"
#include "Phobos/Runtime/Launcher.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/Support/Numerics.h"
#include "Phobos/Viz/Visualization.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace phobos;
using namespace phobos::capi;

namespace {
struct SessionObject {
  Session session;
  std::vector<std::string> kernelNames;
  std::string tunedVariant;
  std::string autotuneSpace;
  std::string page;
};

struct BuildObject {
  KernelBuild build;
  std::string contract;
  std::string notes;
};
} // namespace

static SessionObject *unwrap(PhobosSession session) {
  return static_cast<SessionObject *>(session.ptr);
}
static BuildObject *unwrap(PhobosKernelBuild build) {
  return static_cast<BuildObject *>(build.ptr);
}
PhobosError phobos::capi::wrapError(llvm::Error error) {
  if (!error)
    return {nullptr};
  ErrorObject object;
  llvm::handleAllErrors(
      std::move(error),
      [&](const SessionError &failure) {
        object.message = failure.getMessage();
        object.file = failure.getFile();
        object.line = failure.getLine();
        object.column = failure.getColumn();
      },
      [&](const LaunchError &rejected) {
        object.message = rejected.getReason();
        object.parameter = rejected.getParam();
      },
      [&](const llvm::ErrorInfoBase &other) { object.message = other.message(); });
  return {new ErrorObject(std::move(object))};
}

/// "NAME=V,..." into `values`; an error naming `what` when it does not parse.
static PhobosError parseSpec(PhobosStringRef text, llvm::StringRef what,
                             llvm::StringMap<int64_t> &values) {
  std::string problem = frontend::parseVariantSpec(unwrap(text), values);
  if (!problem.empty())
    return makeError((what + ": " + problem).str());
  return {nullptr};
}

/// parseSpec for extents of dimensions: each at least 1 and at most `most`.
static PhobosError parseExtents(PhobosStringRef text, llvm::StringRef what,
                                llvm::StringMap<int64_t> &values,
                                int64_t most = INT64_MAX) {
  if (PhobosError error = parseSpec(text, what, values);
      !phobosErrorIsNull(error))
    return error;
  for (auto &entry : values) {
    if (entry.getValue() >= 1 && entry.getValue() <= most)
      continue;
    if (most == INT64_MAX)
      return makeError(llvm::formatv("{0}: {1}={2}: extents are at least 1",
                                     what, entry.getKey(), entry.getValue()));
    return makeError(
        llvm::formatv("{0}: {1}={2}: extents are between 1 and {3}", what,
                      entry.getKey(), entry.getValue(), most));
  }
  return {nullptr};
}

PhobosStringRef phobosStringRefCreateFromCString(const char *text) {
  return {text ? text : "", text ? std::strlen(text) : 0};
}

PhobosStringRef phobosErrorGetMessage(PhobosError error) {
  return wrap(unwrap(error)->message);
}
PhobosStringRef phobosErrorGetFile(PhobosError error) {
  return wrap(unwrap(error)->file);
}
unsigned phobosErrorGetLine(PhobosError error) { return unwrap(error)->line; }
unsigned phobosErrorGetColumn(PhobosError error) {
  return unwrap(error)->column;
}
PhobosStringRef phobosErrorGetParameter(PhobosError error) {
  return wrap(unwrap(error)->parameter);
}
void phobosErrorDestroy(PhobosError error) { delete unwrap(error); }

PhobosStringRef phobosCompilerVersion(void) { return wrap(compilerVersion()); }

PhobosStringRef phobosDefaultCacheDir(void) {
  // Formed again at each call: the environment may have changed.
  thread_local std::string root;
  root = defaultKernelCacheDir();
  return wrap(root);
}

size_t phobosChipForCapability(int major, int minor, char *out,
                               size_t capacity) {
  std::string chip = chipForCapability(major, minor);
  if (out && capacity > 0) {
    size_t copied = std::min(chip.size(), capacity - 1);
    std::memcpy(out, chip.data(), copied);
    out[copied] = '\0';
  }
  return chip.size();
}

bool phobosChipIsSupported(PhobosStringRef chip) {
  return isValidChip(unwrap(chip));
}

PhobosSession phobosSessionCreate(void) { return {new SessionObject()}; }
void phobosSessionDestroy(PhobosSession session) { delete unwrap(session); }

PhobosError phobosSessionLoad(PhobosSession session, PhobosStringRef text,
                              PhobosStringRef fileName,
                              PhobosStringRef spanMapJson) {
  SessionObject *object = unwrap(session);
  object->kernelNames.clear();
  llvm::StringRef name = unwrap(fileName);
  if (llvm::Error error = object->session.load(
          unwrap(text), name.empty() ? "<phobos>" : name, unwrap(spanMapJson)))
    return wrapError(std::move(error));
  llvm::Expected<std::vector<std::string>> names = object->session.kernelNames();
  if (!names)
    return wrapError(names.takeError());
  object->kernelNames = std::move(*names);
  return {nullptr};
}

intptr_t phobosSessionGetNumKernels(PhobosSession session) {
  return static_cast<intptr_t>(unwrap(session)->kernelNames.size());
}

PhobosStringRef phobosSessionGetKernelName(PhobosSession session,
                                           intptr_t index) {
  const std::vector<std::string> &names = unwrap(session)->kernelNames;
  if (index < 0 || static_cast<size_t>(index) >= names.size())
    return {"", 0};
  return wrap(names[index]);
}

PhobosError phobosSessionCompile(PhobosSession session,
                                 const PhobosCompileRequest *request,
                                 PhobosKernelBuild *build) {
  if (!request || !build)
    return makeError("phobosSessionCompile: the request and the result are "
                     "not optional");
  build->ptr = nullptr;
  llvm::StringMap<int64_t> variant, specializeDims;
  if (PhobosError error = parseSpec(request->variant, "variant", variant);
      !phobosErrorIsNull(error))
    return error;
  if (PhobosError error = parseExtents(request->specializeDims,
                                       "specialize dims", specializeDims);
      !phobosErrorIsNull(error))
    return error;
  CompileOptions options;
  options.chip = unwrap(request->chip).str();
  options.cacheDir = unwrap(request->cacheDir).str();
  options.assemble = request->assemble;
  options.lineInfo = !request->withoutLineInfo;
  llvm::Expected<KernelBuild> built = unwrap(session)->session.getOrCompile(
      unwrap(request->kernel), variant, specializeDims, options);
  if (!built)
    return wrapError(built.takeError());
  auto object = std::make_unique<BuildObject>();
  object->build = std::move(*built);
  llvm::json::Value contract = object->build.kernel.contract.toJSON();
  contract.getAsObject()->insert({"chip", object->build.kernel.chip});
  llvm::raw_string_ostream(object->contract) << contract;
  for (const std::string &note : object->build.notes)
    object->notes += note + "\n";
  if (!object->build.assemblyError.empty())
    object->notes += "no cubin: " + object->build.assemblyError + "\n";
  if (!object->build.storeError.empty())
    object->notes += "not cached: " + object->build.storeError + "\n";
  build->ptr = object.release();
  return {nullptr};
}

PhobosStringRef phobosKernelBuildGetContract(PhobosKernelBuild build) {
  return wrap(unwrap(build)->contract);
}
PhobosStringRef phobosKernelBuildGetPtx(PhobosKernelBuild build) {
  return wrap(unwrap(build)->build.kernel.ptx);
}
bool phobosKernelBuildHasCubin(PhobosKernelBuild build) {
  return unwrap(build)->build.cubin.has_value();
}
PhobosStringRef phobosKernelBuildGetCubin(PhobosKernelBuild build) {
  const std::optional<std::string> &cubin = unwrap(build)->build.cubin;
  return cubin ? wrap(*cubin) : PhobosStringRef{"", 0};
}
PhobosStringRef phobosKernelBuildGetCacheEntry(PhobosKernelBuild build) {
  return wrap(unwrap(build)->build.cacheEntry);
}
bool phobosKernelBuildIsFromCache(PhobosKernelBuild build) {
  return unwrap(build)->build.fromCache;
}
PhobosStringRef phobosKernelBuildGetNotes(PhobosKernelBuild build) {
  return wrap(unwrap(build)->notes);
}
PhobosStringRef phobosKernelBuildGetDiagnostics(PhobosKernelBuild build) {
  return wrap(unwrap(build)->build.diagnostics);
}
void phobosKernelBuildDestroy(PhobosKernelBuild build) { delete unwrap(build); }

PhobosError phobosSessionGetAutotuneSpace(PhobosSession session,
                                          PhobosStringRef kernel,
                                          PhobosStringRef *space) {
  if (!space)
    return makeError("phobosSessionGetAutotuneSpace: the result is not optional");
  *space = {"", 0};
  SessionObject *object = unwrap(session);
  auto found = object->session.autotuneSpace(unwrap(kernel));
  if (!found)
    return wrapError(found.takeError());
  std::string &text = object->autotuneSpace;
  text.clear();
  for (auto &[name, values] : *found) {
    text += (text.empty() ? "" : ",") + name + "=";
    for (auto [index, value] : llvm::enumerate(values))
      text += (index ? ":" : "") + std::to_string(value);
  }
  *space = wrap(text);
  return {nullptr};
}

PhobosError phobosSessionGetTunedVariant(PhobosSession session,
                                         PhobosStringRef kernel,
                                         PhobosStringRef chip,
                                         PhobosStringRef dimsSpec, bool general,
                                         PhobosStringRef cacheDir,
                                         PhobosStringRef *variant) {
  if (!variant)
    return makeError("phobosSessionGetTunedVariant: the result is not optional");
  *variant = {"", 0};
  llvm::StringMap<int64_t> dims;
  if (PhobosError error = parseSpec(dimsSpec, "dims", dims);
      !phobosErrorIsNull(error))
    return error;
  SessionObject *object = unwrap(session);
  llvm::Expected<std::vector<std::pair<std::string, int64_t>>> found =
      object->session.tunedVariant(unwrap(kernel), unwrap(chip), dims, general,
                                   unwrap(cacheDir));
  if (!found)
    return wrapError(found.takeError());
  object->tunedVariant.clear();
  for (auto &[name, value] : *found)
    object->tunedVariant += (object->tunedVariant.empty() ? "" : ",") + name +
                            "=" + std::to_string(value);
  *variant = wrap(object->tunedVariant);
  return {nullptr};
}

/// phobosSessionInterpret and phobosSessionRaceCheck: `races` null runs
/// without the check.
static PhobosError interpret(PhobosSession session, PhobosStringRef kernel,
                             PhobosStringRef variantSpec, const int64_t grid[3],
                             const PhobosArgument *args, intptr_t numArgs,
                             uint64_t stepLimit, unsigned threads,
                             intptr_t *races) {
  llvm::StringMap<int64_t> variant;
  if (PhobosError error = parseSpec(variantSpec, "variant", variant);
      !phobosErrorIsNull(error))
    return error;
  if (!grid || numArgs < 0 || (numArgs > 0 && !args))
    return makeError("phobosSessionInterpret: a grid and the arguments are "
                     "not optional");
  interp::Options options;
  for (int axis = 0; axis < 3; ++axis) {
    if (grid[axis] < 1)
      return makeError(llvm::formatv("grid {0} extent is {1}; it must be at "
                                     "least 1",
                                     "xyz"[axis], grid[axis]));
    options.grid[axis] = grid[axis];
  }
  if (stepLimit)
    options.stepLimit = stepLimit;
  options.threads = threads;
  std::vector<interp::Argument> arguments;
  for (intptr_t index = 0; index < numArgs; ++index) {
    const PhobosArgument &arg = args[index];
    if (!arg.data) {
      interp::ScalarArg scalar;
      scalar.floatValue = arg.floatValue;
      scalar.intValue = arg.intValue;
      arguments.push_back(scalar);
      continue;
    }
    std::optional<ElementType> element = parseElementType(unwrap(arg.elementType));
    if (!element)
      return makeError(llvm::formatv("argument {0}: unknown element type '{1}'",
                                     index, unwrap(arg.elementType)));
    if (arg.rank < 0 || (arg.rank > 0 && !arg.shape))
      return makeError(llvm::formatv("argument {0}: a tensor needs its shape",
                                     index));
    interp::TensorArg tensor;
    tensor.data = arg.data;
    tensor.elementType = *element;
    tensor.shape.assign(arg.shape, arg.shape + arg.rank);
    arguments.push_back(std::move(tensor));
  }
  std::vector<interp::Race> found;
  if (races) {
    options.races = &found;
    *races = 0;
  }
  llvm::Error error = unwrap(session)->session.interpret(unwrap(kernel), variant,
                                                         arguments, options);
  if (races)
    *races = static_cast<intptr_t>(found.size());
  return wrapError(std::move(error));
}

PhobosError phobosSessionInterpret(PhobosSession session,
                                   PhobosStringRef kernel,
                                   PhobosStringRef variantSpec,
                                   const int64_t grid[3],
                                   const PhobosArgument *args,
                                   intptr_t numArgs, uint64_t stepLimit,
                                   unsigned threads) {
  return interpret(session, kernel, variantSpec, grid, args, numArgs,
                   stepLimit, threads, nullptr);
}

PhobosError phobosSessionRaceCheck(PhobosSession session,
                                   PhobosStringRef kernel,
                                   PhobosStringRef variantSpec,
                                   const int64_t grid[3],
                                   const PhobosArgument *args,
                                   intptr_t numArgs, uint64_t stepLimit,
                                   unsigned threads, intptr_t *races) {
  if (!races)
    return makeError("phobosSessionRaceCheck: `races` is not optional");
  return interpret(session, kernel, variantSpec, grid, args, numArgs,
                   stepLimit, threads, races);
}

PhobosError phobosSessionVisualize(PhobosSession session,
                                   const PhobosVisualizeRequest *request,
                                   PhobosStringRef *page) {
  if (!request || !page)
    return makeError("phobosSessionVisualize: the request and the result are "
                     "not optional");
  *page = {"", 0};
  viz::VisualizationOptions options;
  options.kernel = unwrap(request->kernel).str();
  if (PhobosError error =
          parseSpec(request->variant, "variant", options.variant);
      !phobosErrorIsNull(error))
    return error;
  if (PhobosError error =
          parseExtents(request->dims, "dims", options.dims, INT32_MAX);
      !phobosErrorIsNull(error))
    return error;
  llvm::StringRef chip = unwrap(request->chip);
  if (!chip.empty()) {
    if (!isValidChip(chip))
      return makeError(("chip: unsupported chip '" + chip +
                        "'; Phobos targets " + supportedChips())
                           .str());
    options.chip = chip.str();
  }
  for (int axis = 0; axis < 3; ++axis) {
    if (request->cta[axis] < 0)
      return makeError(llvm::formatv("cta: block index {0} is {1}; block "
                                     "indices are at least 0",
                                     "xyz"[axis], request->cta[axis]));
    options.cta[axis] = request->cta[axis];
  }
  llvm::SmallVector<llvm::StringRef> scalars;
  unwrap(request->scalars).split(scalars, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef spec : scalars) {
    auto [name, text] = spec.split('=');
    name = name.trim();
    double value = 0;
    if (name.empty() || text.trim().getAsDouble(value))
      return makeError(("scalars: expected NAME=NUMBER, got '" + spec + "'")
                           .str());
    if (!options.scalars.try_emplace(name, value).second)
      return makeError(("scalars: " + name + " is given twice").str());
  }
  if (request->maxGridElements < 0)
    return makeError(llvm::formatv("max grid elements: {0} is negative",
                                   request->maxGridElements));
  if (request->maxGridElements > 0)
    options.maxGridElements = request->maxGridElements;
  if (request->grid[0] || request->grid[1] || request->grid[2]) {
    std::array<int64_t, 3> grid;
    for (int axis = 0; axis < 3; ++axis) {
      if (request->grid[axis] < 1 || request->grid[axis] > INT32_MAX)
        return makeError(llvm::formatv("grid: the {0} extent is {1}; extents "
                                       "are between 1 and {2}",
                                       "xyz"[axis], request->grid[axis],
                                       INT32_MAX));
      grid[axis] = request->grid[axis];
    }
    options.grid = grid;
  }
  if (request->maxGridSteps > 0)
    options.maxGridSteps = request->maxGridSteps;
  if (request->maxWriteRuns < 0)
    return makeError(llvm::formatv("max write runs: {0} is negative",
                                   request->maxWriteRuns));
  if (request->maxWriteRuns > 0)
    options.maxWriteRuns = request->maxWriteRuns;
  options.tuningReportText = unwrap(request->tuningReport).str();
  options.tuningReportFile = unwrap(request->tuningReportFile).str();
  if (options.tuningReportFile.empty())
    options.tuningReportFile = "<tuning report>";
  options.cacheDir = unwrap(request->cacheDir).str();
  options.clusterPlanText = unwrap(request->clusterPlan).str();
  options.clusterPlanFile = unwrap(request->clusterPlanFile).str();
  if (options.clusterPlanFile.empty())
    options.clusterPlanFile = "<cluster plan>";
  options.clusterSummaryText = unwrap(request->clusterSummary).str();
  options.clusterSummaryFile = unwrap(request->clusterSummaryFile).str();
  if (options.clusterSummaryFile.empty())
    options.clusterSummaryFile = "<job summary>";
  if (request->maxIrLines < 0)
    return makeError(llvm::formatv("max IR lines: {0} is negative",
                                   request->maxIrLines));
  options.maxIrLines = static_cast<size_t>(request->maxIrLines);

  SessionObject *object = unwrap(session);
  std::optional<llvm::json::Value> data;
  llvm::Error error = object->session.withProgram(
      [&](llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
          const frontend::SpanMap *spanMap) -> mlir::LogicalResult {
        options.spanMap = spanMap;
        mlir::FailureOr<llvm::json::Value> built =
            viz::buildVisualization(sourceMgr, context, options);
        if (mlir::failed(built))
          return mlir::failure();
        data = std::move(*built);
        return mlir::success();
      });
  if (error)
    return wrapError(std::move(error));
  object->page.clear();
  llvm::raw_string_ostream os(object->page);
  if (request->json)
    os << *data << "\n";
  else
    viz::writeVisualizationPage(*data, os);
  *page = wrap(object->page);
  return {nullptr};
}
