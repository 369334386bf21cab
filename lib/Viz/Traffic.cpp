//===- Traffic.cpp - What one CTA read and wrote --------------------------===//

#include "Traffic.h"

#include "Phobos/Interpreter/Interpreter.h"
#include "Phobos/Runtime/HostTensor.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace mlir;
using namespace phobos;
using namespace phobos::viz;
using llvm::json::Array;
using llvm::json::Object;

/// The most the inputs of a traced run may take: the page is for problems
/// small enough to look at.
static constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 30;
/// The most elements written that the grid view follows: the race check
/// keeps 40 bytes of shadow for each.
static constexpr int64_t kMaxGridWrittenElements = int64_t(1) << 23;

static llvm::StringRef kindName(interp::AccessKind kind) {
  switch (kind) {
  case interp::AccessKind::Read:
    return "read";
  case interp::AccessKind::Write:
    return "write";
  case interp::AccessKind::AtomicAdd:
    return "atomic add";
  }
  llvm_unreachable("an access kind");
}

/// Sorted element indices as [first, length] runs.
static Array toRuns(llvm::ArrayRef<int64_t> elements) {
  Array runs;
  for (size_t k = 0; k < elements.size();) {
    size_t end = k + 1;
    while (end < elements.size() && elements[end] == elements[end - 1] + 1)
      ++end;
    runs.push_back(Array{elements[k], static_cast<int64_t>(end - k)});
    k = end;
  }
  return runs;
}

/// The masked elements of `access` (outside `tensor`), drawn apart: the
/// box that holds the tensor and all of them ("box": {"origin", "shape"},
/// per axis), the number of them, and where they lie in the box, as
/// row-major runs.
static void describeMasked(const interp::TracedAccess &access,
                           const HostTensor &tensor, Object &entry) {
  llvm::ArrayRef<int64_t> shape = tensor.getShape();
  size_t rank = shape.size();
  llvm::SmallVector<int64_t, 4> lower(rank, 0), upper(shape);
  for (const llvm::SmallVector<int64_t, 4> &index : access.maskedElements)
    for (size_t axis = 0; axis < rank; ++axis) {
      lower[axis] = std::min(lower[axis], index[axis]);
      upper[axis] = std::max(upper[axis], index[axis] + 1);
    }
  llvm::SmallVector<int64_t, 4> extent(rank);
  for (size_t axis = 0; axis < rank; ++axis)
    extent[axis] = upper[axis] - lower[axis];
  // Sorted indices give sorted row-major positions in the box.
  std::vector<int64_t> positions;
  positions.reserve(access.maskedElements.size());
  for (const llvm::SmallVector<int64_t, 4> &index : access.maskedElements) {
    int64_t position = 0;
    for (size_t axis = 0; axis < rank; ++axis)
      position = position * extent[axis] + (index[axis] - lower[axis]);
    positions.push_back(position);
  }
  entry["box"] = Object{{"origin", Array(lower)}, {"shape", Array(extent)}};
  entry["masked_elements"] = static_cast<int64_t>(positions.size());
  entry["masked_runs"] = toRuns(positions);
}

namespace {
/// The arguments of a run as phobos-run makes them: seeded random inputs,
/// poisoned outputs, float scalars in [0.5, 1.5) and integer ones 1 unless
/// given; and the page's list of the tensors.
struct SeededArguments {
  std::vector<HostTensor> tensors;
  std::vector<interp::Argument> arguments;
  Array tensorList;
  llvm::DenseMap<unsigned, int64_t> tensorIndex;
  /// Why there are none (too much memory); empty when there are.
  std::string note;
};
} // namespace

static SeededArguments seedArguments(const LaunchContract &contract,
                                     const VisualizationOptions &options) {
  SeededArguments seeded;
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<double> scalarValue(0.5, 1.5);
  seeded.tensors.resize(contract.params.size());
  uint64_t bytes = 0;
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      interp::ScalarArg scalar;
      auto given = options.scalars.find(slot.name);
      double value = given != options.scalars.end() ? given->second
                     : isFloat(slot.element)        ? scalarValue(rng)
                                                    : 1;
      scalar.floatValue = value;
      scalar.intValue = static_cast<int64_t>(value);
      seeded.arguments.push_back(scalar);
      continue;
    }
    llvm::SmallVector<int64_t, 4> shape;
    for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape)) {
      if (extent < 0 && !options.dims.count(dim)) {
        seeded.note = "the tensors need dim '" + dim + "'";
        return seeded;
      }
      shape.push_back(extent >= 0 ? extent : options.dims.lookup(dim));
    }
    HostTensor &tensor = seeded.tensors[index];
    tensor = HostTensor(slot.element, shape);
    bytes += tensor.byteSize();
    if (bytes > kMaxTensorBytes) {
      seeded.note = "the tensors take more than 1 GiB; traffic is shown for "
                    "smaller problems";
      return seeded;
    }
    if (slot.read || !slot.written)
      tensor.fillRandom(rng);
    else
      tensor.poison();
    interp::TensorArg argument;
    argument.data = tensor.data();
    argument.elementType = slot.element;
    argument.shape.assign(shape.begin(), shape.end());
    seeded.arguments.push_back(argument);
    seeded.tensorIndex[index] = seeded.tensorList.size();
    seeded.tensorList.push_back(Object{{"name", slot.name},
                                       {"param", static_cast<int64_t>(index)},
                                       {"shape", Array(shape)},
                                       {"element", name(slot.element).str()}});
  }
  return seeded;
}

/// "the interpreter stopped at source line L: message".
static std::string describeStop(const interp::RunError &error,
                                const StageRecorder &recorder) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "the interpreter stopped";
  if (unsigned line = recorder.sourceLineOf(error.loc))
    os << " at source line " << line;
  os << ": " << error.message;
  return text;
}

Object phobos::viz::describeTraffic(tile::KernelOp kernel,
                                    const LaunchContract &contract,
                                    std::optional<std::array<int64_t, 3>> grid,
                                    const VisualizationOptions &options,
                                    const StageRecorder &recorder,
                                    unsigned stage) {
  if (!grid)
    return Object{{"note", "the grid needs every launch dim"}};
  const std::array<int64_t, 3> &cta = options.cta;
  for (int axis = 0; axis < 3; ++axis)
    if (cta[axis] >= (*grid)[axis])
      return Object{
          {"note", "CTA (" + std::to_string(cta[0]) + ", " +
                       std::to_string(cta[1]) + ", " + std::to_string(cta[2]) +
                       ") is outside the grid (" + std::to_string((*grid)[0]) +
                       ", " + std::to_string((*grid)[1]) + ", " +
                       std::to_string((*grid)[2]) + ")"}};
  SeededArguments seeded = seedArguments(contract, options);
  if (!seeded.note.empty())
    return Object{{"note", seeded.note}};
  std::vector<interp::Argument> &arguments = seeded.arguments;
  llvm::DenseMap<unsigned, int64_t> &tensorIndex = seeded.tensorIndex;
  Array &tensorList = seeded.tensorList;

  interp::Trace trace;
  trace.cta = options.cta;
  interp::Options run;
  run.grid = *grid;
  run.threads = 1;
  run.trace = &trace;
  std::optional<interp::RunError> error =
      interp::runKernel(kernel, arguments, run);
  Object result{{"cta", Array{options.cta[0], options.cta[1], options.cta[2]}},
                {"stage", static_cast<int64_t>(stage)},
                {"tensors", std::move(tensorList)}};
  if (error)
    result["note"] = describeStop(*error, recorder);
  Array accesses;
  for (const interp::TracedAccess &access : trace.accesses) {
    Object entry{{"op", access.op->getName().getStringRef().str()},
                 {"line", static_cast<int64_t>(recorder.lineOf(access.op))},
                 {"src", static_cast<int64_t>(
                             recorder.sourceLineOf(access.op->getLoc()))},
                 {"tensor", tensorIndex.lookup(access.param)},
                 {"kind", kindName(access.kind)},
                 {"count", static_cast<int64_t>(access.elements.size())},
                 {"runs", toRuns(access.elements)},
                 {"masked", access.masked},
                 {"executions", access.executions}};
    if (access.truncated)
      entry["truncated"] = true;
    if (!access.maskedElements.empty())
      describeMasked(access, seeded.tensors[access.param], entry);
    accesses.push_back(std::move(entry));
  }
  result["accesses"] = std::move(accesses);
  return result;
}

/// The elements whose `flags` have `flag`, as [first, length] runs.
static Array flaggedRuns(llvm::ArrayRef<uint8_t> flags, uint8_t flag) {
  Array runs;
  for (size_t k = 0; k < flags.size();) {
    if (!(flags[k] & flag)) {
      ++k;
      continue;
    }
    size_t end = k + 1;
    while (end < flags.size() && (flags[end] & flag))
      ++end;
    runs.push_back(
        Array{static_cast<int64_t>(k), static_cast<int64_t>(end - k)});
    k = end;
  }
  return runs;
}

Object phobos::viz::describeGridWrites(
    tile::KernelOp kernel, const LaunchContract &contract,
    std::optional<std::array<int64_t, 3>> grid,
    const VisualizationOptions &options, const StageRecorder &recorder,
    unsigned stage) {
  if (!grid)
    return Object{{"note", "the grid needs every launch dim"}};
  SeededArguments seeded = seedArguments(contract, options);
  if (!seeded.note.empty())
    return Object{{"note", seeded.note}};
  // The race check's shadow takes 40 bytes an element written.
  int64_t written = 0;
  for (auto [index, slot] : llvm::enumerate(contract.params))
    if (slot.kind == ParamSlot::Kind::Tensor && slot.written)
      written += seeded.tensors[index].numElements();
  if (written > kMaxGridWrittenElements)
    return Object{{"note", "the kernel writes " + std::to_string(written) +
                               " elements, more than the grid view follows (" +
                               std::to_string(kMaxGridWrittenElements) +
                               "); it is shown for smaller problems"}};

  std::vector<interp::Race> races;
  interp::WriteMap writes;
  interp::Options run;
  run.grid = *grid;
  // One thread: which of two racing CTAs wrote an element first, and the
  // race reported first, are then those of the CTAs' order.
  run.threads = 1;
  run.races = &races;
  run.writes = &writes;
  run.launchStepLimit = options.maxGridSteps;
  run.stepLimit = std::min(run.stepLimit, options.maxGridSteps);
  // The interpreter's budget messages name phobos-run's options.
  Object overBudget{{"note", "the whole grid takes more than " +
                                 std::to_string(options.maxGridSteps) +
                                 " interpreter steps (about 100 ns each; "
                                 "the budget is phobos-viz --max-grid-steps, "
                                 "max_grid_steps in Python)"}};
  // Every CTA takes a step at least.
  uint64_t ctas = llvm::SaturatingMultiply(
      llvm::SaturatingMultiply(uint64_t((*grid)[0]), uint64_t((*grid)[1])),
      uint64_t((*grid)[2]));
  if (ctas > options.maxGridSteps)
    return overBudget;
  if (std::optional<interp::RunError> error =
          interp::runKernel(kernel, seeded.arguments, run)) {
    if (llvm::StringRef(error->message).contains("did not finish within"))
      return overBudget;
    return Object{{"note", describeStop(*error, recorder)}};
  }

  Array tensors;
  llvm::DenseMap<unsigned, int64_t> writtenIndex;
  for (const interp::WriteMap::Tensor &tensor : writes.tensors) {
    Object entry = *seeded.tensorList[seeded.tensorIndex.lookup(tensor.param)]
                        .getAsObject();
    Array runs;
    int64_t count = 0;
    llvm::DenseSet<int32_t> ctas;
    bool omitted = false;
    for (size_t k = 0; k < tensor.writer.size();) {
      int32_t cta = tensor.writer[k];
      size_t end = k + 1;
      while (end < tensor.writer.size() && tensor.writer[end] == cta)
        ++end;
      if (cta >= 0) {
        count += end - k;
        ctas.insert(cta);
        if (static_cast<int64_t>(runs.size()) < options.maxWriteRuns)
          runs.push_back(Array{static_cast<int64_t>(k),
                               static_cast<int64_t>(end - k), cta});
        else
          omitted = true;
      }
      k = end;
    }
    entry["written"] = count;
    entry["ctas"] = static_cast<int64_t>(ctas.size());
    if (omitted) {
      entry["omitted"] = "more than " + std::to_string(options.maxWriteRuns) +
                         " runs of elements by one CTA (phobos-viz "
                         "--max-write-runs, max_write_runs in Python)";
    } else {
      entry["runs"] = std::move(runs);
      entry["several"] = flaggedRuns(tensor.flags, interp::WriteMap::kSeveral);
      entry["raced"] = flaggedRuns(tensor.flags, interp::WriteMap::kRaced);
    }
    writtenIndex[tensor.param] = tensors.size();
    tensors.push_back(std::move(entry));
  }

  Array raceList;
  for (const interp::Race &race : races) {
    auto side = [&](const std::string &access, Location loc,
                    const std::array<int64_t, 3> &cta) {
      return Object{{"access", access},
                    {"cta", Array{cta[0], cta[1], cta[2]}},
                    {"src", static_cast<int64_t>(recorder.sourceLineOf(loc))}};
    };
    auto found = writtenIndex.find(race.param);
    raceList.push_back(Object{
        {"tensor", found != writtenIndex.end() ? found->second : -1},
        {"element", Array(race.element)},
        {"count", static_cast<int64_t>(race.count)},
        {"first", side(race.firstAccess, race.first, race.firstCta)},
        {"second", side(race.secondAccess, race.second, race.secondCta)}});
  }
  return Object{{"grid", Array{(*grid)[0], (*grid)[1], (*grid)[2]}},
                {"stage", static_cast<int64_t>(stage)},
                {"tensors", std::move(tensors)},
                {"races", std::move(raceList)}};
}
