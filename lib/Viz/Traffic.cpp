//===- Traffic.cpp - What one CTA read and wrote --------------------------===//

#include "Traffic.h"

#include "Phobos/Interpreter/Interpreter.h"
#include "Phobos/Runtime/HostTensor.h"

#include "mlir/IR/Diagnostics.h"
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
  // The arguments as phobos-run makes them: seeded random inputs, poisoned
  // outputs, float scalars in [0.5, 1.5) and integer ones 1 unless given.
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<double> scalarValue(0.5, 1.5);
  std::vector<HostTensor> tensors(contract.params.size());
  std::vector<interp::Argument> arguments;
  Array tensorList;
  llvm::DenseMap<unsigned, int64_t> tensorIndex;
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
      arguments.push_back(scalar);
      continue;
    }
    llvm::SmallVector<int64_t, 4> shape;
    for (auto [name, extent] : llvm::zip(slot.dims, slot.staticShape))
      shape.push_back(extent >= 0 ? extent : options.dims.lookup(name));
    HostTensor &tensor = tensors[index];
    tensor = HostTensor(slot.element, shape);
    bytes += tensor.byteSize();
    if (bytes > kMaxTensorBytes)
      return Object{{"note", "the tensors take more than 1 GiB; traffic is "
                             "shown for smaller problems"}};
    if (slot.read || !slot.written)
      tensor.fillRandom(rng);
    else
      tensor.poison();
    interp::TensorArg argument;
    argument.data = tensor.data();
    argument.elementType = slot.element;
    argument.shape.assign(shape.begin(), shape.end());
    arguments.push_back(argument);
    tensorIndex[index] = tensorList.size();
    tensorList.push_back(Object{{"name", slot.name},
                                {"param", static_cast<int64_t>(index)},
                                {"shape", Array(shape)},
                                {"element", name(slot.element).str()}});
  }

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
  if (error) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "the interpreter stopped";
    if (unsigned line = recorder.sourceLineOf(error->loc))
      os << " at source line " << line;
    os << ": " << error->message;
    result["note"] = text;
  }
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
    accesses.push_back(std::move(entry));
  }
  result["accesses"] = std::move(accesses);
  return result;
}
