//===- Visualization.cpp - The data of the visualizer's page --------------===//
//
// Imports one variant of one kernel, specialises it for the problem's
// extents as phobos-run does, and runs the pipeline every tool runs with a
// StageRecorder: the IR after each pass becomes the passes panel (the first
// print whole, each later one as a line diff against the one before), and
// two collectors read the live IR on the way: the bank-conflict model of
// each shared buffer right after tile-swizzle-shared (what that pass
// weighed), and the layouts of the tile values and the allocated buffers
// right before convert-tile-to-gpu (the last tile-level IR).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Viz/Visualization.h"
#include "Phobos/Viz/LineDiff.h"

#include "Cluster.h"
#include "StageRecorder.h"
#include "Traffic.h"
#include "Tuning.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Driver/Compiler.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Target/BuildLaunchContract.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace phobos;
using namespace phobos::viz;
using llvm::json::Array;
using llvm::json::Object;

namespace {

/// The first file position in `loc` (a fused or named location's inner
/// one), or null.
FileLineColLoc findFileLocation(Location loc) {
  FileLineColLoc found;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

Array linesToJson(ArrayRef<StringRef> lines) {
  Array array;
  array.reserve(lines.size());
  for (StringRef line : lines)
    array.push_back(line.str());
  return array;
}

Array numbersToJson(ArrayRef<unsigned> numbers) {
  Array array;
  array.reserve(numbers.size());
  for (unsigned number : numbers)
    array.push_back(static_cast<int64_t>(number));
  return array;
}

/// Whether the code panel hides `line`: an `@cluster(...)` attribute (or
/// the Python package's `@ph.cluster(...)` decorator), which one GPU
/// ignores (docs/language.md).
bool isClusterLine(StringRef line) {
  StringRef text = line.trim();
  if (!text.consume_front("@"))
    return false;
  StringRef name = text.take_until([](char c) { return c == '(' || c == ' '; });
  return name == "cluster" || name.ends_with(".cluster");
}

/// The code panel: the source the user wrote (the Python file of a span
/// map), its lines, and those it hides.
FailureOr<Object> describeSource(llvm::SourceMgr &sourceMgr,
                                 MLIRContext *context,
                                 const frontend::SpanMap *spanMap) {
  const llvm::MemoryBuffer *main =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::string file = main->getBufferIdentifier().str();
  std::string text = main->getBuffer().str();
  StringRef language = "phobos";
  if (spanMap) {
    language = "python";
    file = spanMap->getOriginalFile();
    text = spanMap->getOriginalSource();
    if (text.empty()) {
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> original =
          readRegularFile(file, kMaxInputFileBytes);
      if (!original) {
        emitError(
            FileLineColLoc::get(context, main->getBufferIdentifier(), 1, 1))
            << "the span map's source: "
            << llvm::toString(original.takeError());
        return failure();
      }
      text = (*original)->getBuffer().str();
    }
  }
  llvm::SmallVector<StringRef> lines;
  StringRef(text).split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  if (lines.size() > 1 && lines.back().empty())
    lines.pop_back();
  Array hidden;
  for (auto [index, line] : llvm::enumerate(lines))
    if (isClusterLine(line))
      hidden.push_back(static_cast<int64_t>(index + 1));
  return Object{{"file", file},
                {"language", language},
                {"lines", linesToJson(lines)},
                {"hidden", std::move(hidden)}};
}

/// The passes panel: the first stage whole, each later one as its edits
/// from the one before; a stage of more than `maxLines` lines (0: no
/// limit) by its counts alone, and the next one shown whole again.
Array describePasses(std::deque<PrintedStage> &stages, size_t maxEdits,
                     size_t maxLines) {
  Array passes;
  const PrintedStage *previous = nullptr;
  bool previousOmitted = false;
  for (PrintedStage &stage : stages) {
    Object entry{{"pass", stage.pass},
                 {"anchor", stage.anchor},
                 {"lines", static_cast<int64_t>(stage.lines.size())}};
    if (maxLines && stage.lines.size() > maxLines) {
      entry["omitted"] = true;
      if (previous)
        entry["changed"] = stage.lines != previous->lines;
      passes.push_back(std::move(entry));
      previous = &stage;
      previousOmitted = true;
      continue;
    }
    if (!previous || previousOmitted) {
      entry["text"] = linesToJson(stage.lines);
      if (previous)
        entry["changed"] = stage.lines != previous->lines;
    } else if (stage.lines == previous->lines) {
      entry["changed"] = false;
    } else {
      SmallVector<LineEdit> edits =
          diffLines(previous->lines, stage.lines, maxEdits);
      Array encoded;
      size_t position = 0;
      int64_t added = 0, removed = 0;
      for (const LineEdit &edit : edits) {
        switch (edit.kind) {
        case LineEdit::Kind::Keep:
          encoded.push_back(Array{"=", static_cast<int64_t>(edit.count)});
          position += edit.count;
          break;
        case LineEdit::Kind::Remove:
          encoded.push_back(Array{"-", static_cast<int64_t>(edit.count)});
          removed += edit.count;
          break;
        case LineEdit::Kind::Insert:
          encoded.push_back(Array{
              "+",
              linesToJson(ArrayRef(stage.lines).slice(position, edit.count))});
          position += edit.count;
          added += edit.count;
          break;
        }
      }
      entry["changed"] = true;
      entry["edits"] = std::move(encoded);
      entry["added"] = added;
      entry["removed"] = removed;
    }
    if (!previous || previousOmitted ||
        stage.sourceLines != previous->sourceLines)
      entry["src"] = numbersToJson(stage.sourceLines);
    passes.push_back(std::move(entry));
    previous = &stage;
    previousOmitted = false;
  }
  return passes;
}

std::string printedLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// What the collectors find on the way through the pipeline.
struct Collected {
  /// describeBankConflicts of each local_alloc after tile-swizzle-shared,
  /// with its location and shape to find its buffer by later (tile-pipeline
  /// replaces a pipelined one by a staged local_buffer).
  struct Conflicts {
    std::string location;
    SmallVector<int64_t> shape;
    Object data;
    bool used = false;
  };
  std::vector<Conflicts> conflicts;
  std::optional<Object> layouts, shared;
  int64_t warps = 0;
  std::optional<int64_t> sharedBytes;
};

void collectConflicts(ModuleOp module, unsigned stage,
                      const StageRecorder &recorder, Collected &collected) {
  module.walk([&](tile::LocalAllocOp alloc) {
    Object data = describeBankConflicts(alloc);
    data["name"] = recorder.nameOf(alloc.getResult());
    data["line"] = static_cast<int64_t>(recorder.lineOf(alloc));
    data["stage"] = static_cast<int64_t>(stage);
    ArrayRef<int64_t> shape = alloc.getType().getShape();
    collected.conflicts.push_back({printedLocation(alloc.getLoc()),
                                   SmallVector<int64_t>(shape),
                                   std::move(data)});
  });
}

/// One buffer of the shared panel.
Object describeBuffer(Operation *op, tile::SharedMemoryType type,
                      std::optional<uint64_t> offset,
                      const StageRecorder &recorder, Collected &collected,
                      int64_t maxElements) {
  Object buffer = describeSharedBuffer(
      type, offset ? static_cast<int64_t>(*offset) : -1, maxElements);
  buffer["name"] = recorder.nameOf(op->getResult(0));
  buffer["op"] = op->getName().getStringRef().str();
  buffer["line"] = static_cast<int64_t>(recorder.lineOf(op));
  buffer["src"] = static_cast<int64_t>(recorder.sourceLineOf(op->getLoc()));
  tile::SharedMemoryType slot = tile::getSlotType(type);
  ArrayRef<int64_t> shape = (slot ? slot : type).getShape();
  std::string location = printedLocation(op->getLoc());
  for (Collected::Conflicts &conflicts : collected.conflicts)
    if (!conflicts.used && conflicts.location == location &&
        ArrayRef<int64_t>(conflicts.shape) == shape) {
      conflicts.used = true;
      buffer["conflicts"] = Object(conflicts.data);
      break;
    }
  return buffer;
}

void collectLayouts(ModuleOp module, unsigned stage,
                    const StageRecorder &recorder, Collected &collected,
                    int64_t maxElements) {
  Array values, layouts, buffers;
  llvm::DenseMap<Type, int64_t> layoutIndex;
  module.walk([&](tile::KernelOp kernel) {
    unsigned warps = tile::getNumWarps(kernel);
    collected.warps = warps;
    if (auto bytes = kernel->getAttrOfType<IntegerAttr>(
            tile::KernelOp::kSharedBytesAttrName))
      collected.sharedBytes = bytes.getInt();
    kernel.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<tile::LocalAllocOp>(op))
        buffers.push_back(describeBuffer(op, alloc.getType(), alloc.getOffset(),
                                         recorder, collected, maxElements));
      else if (auto buffer = dyn_cast<tile::LocalBufferOp>(op))
        buffers.push_back(describeBuffer(op, buffer.getType(),
                                         buffer.getOffset(), recorder,
                                         collected, maxElements));
      for (Value result : op->getResults()) {
        auto type = dyn_cast<tile::TileType>(result.getType());
        if (!type || !isa_and_nonnull<tile::DistributedLayoutInterface>(
                         type.getEncoding()))
          continue;
        auto [it, inserted] = layoutIndex.try_emplace(type, layouts.size());
        if (inserted)
          layouts.push_back(describeTileLayout(type, warps, maxElements));
        values.push_back(Object{
            {"name", recorder.nameOf(result)},
            {"op", op->getName().getStringRef().str()},
            {"line", static_cast<int64_t>(recorder.lineOf(op))},
            {"src", static_cast<int64_t>(recorder.sourceLineOf(op->getLoc()))},
            {"layout", it->second}});
      }
    });
  });
  collected.layouts = Object{{"stage", static_cast<int64_t>(stage)},
                             {"values", std::move(values)},
                             {"layouts", std::move(layouts)}};
  collected.shared = Object{{"stage", static_cast<int64_t>(stage)},
                            {"buffers", std::move(buffers)}};
}

} // namespace

FailureOr<llvm::json::Value>
phobos::viz::buildVisualization(llvm::SourceMgr &sourceMgr,
                                MLIRContext *context,
                                const VisualizationOptions &options) {
  frontend::ImportOptions import;
  import.kernelName = options.kernel;
  for (const auto &entry : options.variant)
    import.variant[entry.getKey()] = entry.getValue();
  OwningOpRef<ModuleOp> module =
      frontend::importPhobos(sourceMgr, context, import);
  if (!module)
    return failure();
  SmallVector<tile::KernelOp> kernels(module->getOps<tile::KernelOp>());
  if (kernels.size() != 1) {
    StringRef file = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                         ->getBufferIdentifier();
    if (kernels.empty()) {
      emitError(FileLineColLoc::get(context, file, 1, 1))
          << "the file has no kernel";
      return failure();
    }
    std::string names;
    for (tile::KernelOp kernel : kernels)
      names += (names.empty() ? "" : ", ") + kernel.getSymName().str();
    emitError(kernels[1].getLoc()) << "the file has several kernels (" << names
                                   << "); choose one with --kernel";
    return failure();
  }
  tile::KernelOp kernel = kernels.front();
  // Problems with the options are reported at the kernel.
  Location at = kernel.getLoc();
  if (!isValidChip(options.chip)) {
    emitError(at) << "unsupported chip '" << options.chip
                  << "'; Phobos targets " << supportedChips();
    return failure();
  }

  // The problem: its extents name the kernel's dims, give the grid and
  // specialise the kernel as phobos-run's launch of them would.
  LaunchContract contract = buildLaunchContract(kernel);
  std::vector<std::string> launchDims = contract.dynamicDims();
  for (const auto &entry : options.dims) {
    StringRef name = entry.getKey();
    bool known = llvm::is_contained(launchDims, name);
    // A compile-time extent may be given too, if it agrees (phobos-run's
    // rule).
    for (const ParamSlot &slot : contract.params)
      for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
        if (dim == name && extent >= 0) {
          if (extent != entry.getValue()) {
            emitError(at) << "dim " << name << "=" << entry.getValue()
                          << ": in this variant '" << name << "' is " << extent;
            return failure();
          }
          known = true;
        }
    if (!known) {
      std::string list;
      for (const std::string &dim : launchDims)
        list += (list.empty() ? "" : ", ") + dim;
      emitError(at) << "dim " << name << ": kernel '" << contract.kernel
                    << "' has no dim of that name"
                    << (list.empty() ? "" : " (its dims: " + list + ")");
      return failure();
    }
  }
  for (const auto &entry : options.scalars) {
    if (llvm::any_of(contract.params, [&](const ParamSlot &slot) {
          return slot.kind == ParamSlot::Kind::Scalar &&
                 slot.name == entry.getKey();
        }))
      continue;
    std::string list;
    for (const ParamSlot &slot : contract.params)
      if (slot.kind == ParamSlot::Kind::Scalar)
        list += (list.empty() ? "" : ", ") + slot.name;
    emitError(at) << "scalar " << entry.getKey() << ": kernel '"
                  << contract.kernel << "' has no scalar parameter of that name"
                  << (list.empty() ? "" : " (its scalars: " + list + ")");
    return failure();
  }
  specializeAlignment(kernel, options.dims);

  FailureOr<Object> source =
      describeSource(sourceMgr, context, options.spanMap);
  if (failed(source))
    return failure();
  FailureOr<Object> tuning = describeTuning(
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer(),
      contract.kernel, options, context);
  if (failed(tuning))
    return failure();
  FailureOr<Object> clusterPanel =
      describeCluster(sourceMgr, contract.kernel, options, context);
  if (failed(clusterPanel))
    return failure();
  if (kernel.getClusterAttr())
    (*clusterPanel)["program_ir"] =
        describeClusterProgram(sourceMgr, context, contract.kernel, options);

  // An op's source line: the `.ph` file's, or through the span map the
  // Python file's (also where the front end already relocated the ops).
  std::string mainFile = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                             ->getBufferIdentifier()
                             .str();
  const frontend::SpanMap *spanMap = options.spanMap;
  auto sourceLine = [mainFile, spanMap](Location loc) -> unsigned {
    FileLineColLoc file = findFileLocation(loc);
    if (!file)
      return 0;
    StringRef name = file.getFilename().getValue();
    if (spanMap) {
      if (name == mainFile)
        return spanMap->lookup(file.getLine(), file.getColumn()).first;
      return name == spanMap->getOriginalFile() ? file.getLine() : 0;
    }
    return name == mainFile ? file.getLine() : 0;
  };

  // One thread: the recorder prints the module between passes. The
  // caller's setting comes back on the way out (a session's context is
  // shared with its compiles).
  bool wasMultithreaded = context->isMultithreadingEnabled();
  context->disableMultithreading();
  llvm::scope_exit restoreThreading([&] {
    if (wasMultithreaded)
      context->enableMultithreading();
  });
  PassManager passes(context);
  PhobosToNVVMOptions pipelineOptions;
  pipelineOptions.chip = options.chip;
  buildPhobosToNVVMPipeline(passes, pipelineOptions);
  auto owned = std::make_unique<StageRecorder>(sourceLine);
  StageRecorder &recorder = *owned;
  Collected collected;
  recorder.after("tile-swizzle-shared", [&](ModuleOp module, unsigned stage) {
    collectConflicts(module, stage, recorder, collected);
  });
  recorder.before("convert-tile-to-gpu", [&](ModuleOp module, unsigned stage) {
    collectLayouts(module, stage, recorder, collected, options.maxGridElements);
  });
  recorder.record(*module, "input", ModuleOp::getOperationName());
  // The traffic of one CTA on the interpreter, which runs the kernel as
  // the front end made it (the IR of the first stage).
  std::optional<std::array<int64_t, 3>> knownGrid = options.grid;
  std::string gridNote;
  if (!knownGrid) {
    llvm::Expected<std::array<int64_t, 3>> grid =
        contract.gridFor(options.dims);
    if (grid)
      knownGrid = *grid;
    else
      gridNote = llvm::toString(grid.takeError());
  }
  Object traffic =
      describeTraffic(kernel, contract, knownGrid, options, recorder, 0);
  Object writes =
      describeGridWrites(kernel, contract, knownGrid, options, recorder, 0);
  passes.addInstrumentation(std::move(owned));
  if (failed(passes.run(*module)))
    return failure();

  Object data{{"format", kFormatVersion},
              {"kernel", contract.kernel},
              {"chip", options.chip},
              {"source", std::move(*source)}};
  Array variant;
  for (const auto &[name, value] : contract.variant)
    variant.push_back(Array{name, value});
  data["variant"] = std::move(variant);
  Object dims;
  for (const auto &entry : options.dims)
    dims[entry.getKey().str()] = entry.getValue();
  data["dims"] = std::move(dims);
  if (knownGrid) {
    data["grid"] = Array{(*knownGrid)[0], (*knownGrid)[1], (*knownGrid)[2]};
  } else {
    data["grid"] = nullptr;
    data["grid_note"] = gridNote;
  }
  data["warps"] = collected.warps;
  if (collected.sharedBytes)
    data["shared_bytes"] = *collected.sharedBytes;
  data["passes"] = describePasses(recorder.getStages(), options.maxDiffEdits,
                                  options.maxIrLines);
  data["layouts"] = collected.layouts
                        ? std::move(*collected.layouts)
                        : Object{{"values", Array{}}, {"layouts", Array{}}};
  data["shared"] = collected.shared ? std::move(*collected.shared)
                                    : Object{{"buffers", Array{}}};
  data["traffic"] = std::move(traffic);
  data["writes"] = std::move(writes);
  data["tuning"] = std::move(*tuning);
  data["cluster"] = std::move(*clusterPanel);
  // What the page does not show yet, for its footer: nothing now.
  data["missing"] = Array{};
  return llvm::json::Value(std::move(data));
}
