//===- Cluster.cpp - The cluster panel's data -----------------------------===//
//
// Plans a job file as phobos-sched --plan does (the job bound to the
// program phobos-cluster-split makes of the page's kernel, JobBinding.h,
// then planProgram), or reads a plan phobos-sched --plan JOB --json wrote;
// either way the plan's JSON (planToJSON) is what the panel is drawn from.
// Checks what it draws (ids, kinds, dependencies) and computes the DAG's
// levels, the fetches' sources and the bytes per link.
//
//===----------------------------------------------------------------------===//

#include "Cluster.h"

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"
#include "Phobos/Dialect/Cluster/Transforms/Passes.h"
#include "Phobos/Dialect/Cluster/Transforms/Planning.h"
#include "Phobos/Job/JobBinding.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Support/Json.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <map>
#include <set>

using namespace mlir;
using namespace phobos;
using namespace phobos::viz;
using llvm::json::Array;
using llvm::json::Object;
using JsonValue = llvm::json::Value;

namespace {
/// One instruction as the page draws it.
struct Instruction {
  int64_t id = 0, node = 0, bytes = 0;
  std::string kind, label, leaf;
  std::vector<int64_t> deps;
  /// A fetch's holder, and the tile it fetches (-1: none).
  int64_t from = -1, tile = -1;
  /// The tile a load or allocate brings in, the tiles a compute writes.
  std::vector<int64_t> holds;
  int64_t source = -1;
  int64_t level = 0;
};

/// "A[1, 0]": a tile's tensor and super-tile coordinates.
std::string tileLabel(const Object &tile) {
  std::string label = tile.getString("tensor").value_or("?").str() + "[";
  if (const Array *coords = tile.getArray("coords"))
    for (auto [index, coord] : llvm::enumerate(*coords))
      label += (index ? ", " : "") +
               std::to_string(coord.getAsInteger().value_or(0));
  return label + "]";
}
} // namespace

/// The plan's instructions, checked; an error message when they are not.
static std::string readInstructions(const Object &plan,
                                    std::vector<Instruction> &out) {
  const Array *programs = plan.getArray("node_programs");
  if (!programs)
    return "it has no \"node_programs\" array";
  static const llvm::StringSet<> kinds = {"allocate", "load",  "fetch",
                                          "compute",  "store", "free"};
  for (const JsonValue &program : *programs) {
    const Object *object = program.getAsObject();
    const Array *instructions =
        object ? object->getArray("instructions") : nullptr;
    if (!instructions)
      return "a node program has no \"instructions\" array";
    for (const JsonValue &entry : *instructions) {
      const Object *row = entry.getAsObject();
      if (!row)
        return "an instruction is not an object";
      Instruction instruction;
      std::optional<int64_t> id = row->getInteger("id");
      std::optional<int64_t> node = row->getInteger("node");
      std::optional<llvm::StringRef> kind = row->getString("kind");
      const Array *deps = row->getArray("deps");
      if (!id || !node || !kind || !deps)
        return "an instruction lacks its \"id\", \"node\", \"kind\" or "
               "\"deps\"";
      if (!kinds.contains(*kind))
        return "instruction " + std::to_string(*id) + " is of an unknown "
               "kind '" + kind->str() + "'";
      instruction.id = *id;
      instruction.node = *node;
      instruction.kind = kind->str();
      instruction.bytes = row->getInteger("bytes").value_or(0);
      for (const JsonValue &dep : *deps) {
        std::optional<int64_t> value = dep.getAsInteger();
        if (!value)
          return "instruction " + std::to_string(*id) +
                 " has a dependency that is not an id";
        instruction.deps.push_back(*value);
      }
      if (const Object *tile = row->getObject("tile")) {
        instruction.label = instruction.kind + " " + tileLabel(*tile);
        int64_t tileId = tile->getInteger("id").value_or(-1);
        if (instruction.kind == "fetch")
          instruction.tile = tileId;
        else if (instruction.kind == "load" || instruction.kind == "allocate")
          instruction.holds.push_back(tileId);
      }
      if (instruction.kind == "fetch")
        instruction.from = row->getInteger("from").value_or(-1);
      if (instruction.kind == "compute") {
        instruction.leaf = row->getString("leaf").value_or("").str();
        instruction.label = "compute " + instruction.leaf;
        if (const Array *writes = row->getArray("writes"))
          for (const JsonValue &tile : *writes)
            instruction.holds.push_back(tile.getAsInteger().value_or(-1));
        if (const Array *tiles = row->getArray("tiles"))
          for (const JsonValue &tile : *tiles)
            if (const Object *object = tile.getAsObject())
              if (llvm::is_contained(instruction.holds,
                                     object->getInteger("id").value_or(-2)))
                instruction.label += " " + tileLabel(*object);
      }
      out.push_back(std::move(instruction));
    }
  }
  return "";
}

/// The @cluster kernel `kernel` of `sourceMgr`'s main buffer, imported for
/// the cluster compiler and split (phobos-cluster-split); null after an
/// error, reported to `context`.
static OwningOpRef<ModuleOp>
importClusterProgram(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                     StringRef kernel, const VisualizationOptions &options) {
  frontend::ImportOptions import;
  import.kernelName = kernel.str();
  import.markCluster = true;
  for (const auto &entry : options.variant)
    import.variant[entry.getKey()] = entry.getValue();
  OwningOpRef<ModuleOp> module =
      frontend::importPhobos(sourceMgr, context, import);
  if (!module)
    return nullptr;
  PassManager split(context);
  split.addPass(cluster::createClusterSplit());
  if (failed(split.run(*module)))
    return nullptr;
  return module;
}

/// Plans options.clusterJob as phobos-sched --plan JOB --json does: the
/// job read, its kernel (this page's, from this page's file) split and
/// bound, planned on the given nodes. Mistakes in the job are errors at
/// its lines; the planner's at the kernel's.
static FailureOr<JsonValue> planJob(llvm::SourceMgr &sourceMgr,
                                    StringRef kernel,
                                    const VisualizationOptions &options,
                                    MLIRContext *context) {
  const VisualizationOptions::ClusterJob &given = options.clusterJob;
  llvm::SourceMgr jobSources;
  jobSources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(given.text, given.file),
      llvm::SMLoc());
  auto errorAt = [&](llvm::SMLoc loc, const llvm::Twine &message) {
    unsigned line = 1, column = 1;
    if (loc.isValid())
      std::tie(line, column) = jobSources.getLineAndColumn(loc);
    emitError(FileLineColLoc::get(context, given.file, line, column))
        << message;
  };
  // The parser prints its one mistake as FILE:LINE:COL: error: MESSAGE.
  std::string parseErrors;
  llvm::raw_string_ostream parseOs(parseErrors);
  std::optional<job::Job> job = job::parseJob(jobSources, parseOs);
  if (!job) {
    StringRef first = StringRef(parseErrors).split('\n').first;
    auto [place, message] = first.split(": error: ");
    auto [rest, columnText] = place.rsplit(':');
    StringRef lineText = rest.rsplit(':').second;
    unsigned line = 1, column = 1;
    if (message.empty() || lineText.getAsInteger(10, line) ||
        columnText.getAsInteger(10, column))
      message = first;
    emitError(FileLineColLoc::get(context, given.file, line, column))
        << message;
    return failure();
  }
  StringRef page = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                       ->getBufferIdentifier();
  std::string source = job::resolveSource(*job, given.file);
  bool same = false;
  if (source.empty() || llvm::sys::fs::equivalent(source, page, same) ||
      !same) {
    errorAt(job->sourceLoc, "the job's source '" + job->source +
                                "' is not this page's file '" + page + "'");
    return failure();
  }
  if (!job->kernel.empty() && job->kernel != kernel) {
    errorAt(job->kernelLoc, "the job's kernel '" + job->kernel +
                                "' is not this page's kernel '" + kernel +
                                "'");
    return failure();
  }
  OwningOpRef<ModuleOp> module =
      importClusterProgram(sourceMgr, context, kernel, options);
  if (!module)
    return failure();
  auto programs = module->getOps<cluster::ProgramOp>();
  if (programs.empty()) {
    errorAt(job->sourceLoc,
            "kernel '" + kernel + "' has no @cluster attribute");
    return failure();
  }
  cluster::ProgramOp program = *programs.begin();
  cluster::PlanOptions plan;
  if (!job::bindJob(*job, program, plan.dims, errorAt))
    return failure();
  plan.nodes = given.nodes;
  plan.vramBytes = given.vramBytes;
  for (const auto &size : given.sizes)
    plan.cluster[size.getKey()] = size.getValue();
  plan.ingest =
      given.directIngest ? cluster::Ingest::Direct : cluster::Ingest::Fetch;
  if (failed(cluster::planProgram(program, plan)))
    return failure();
  JsonValue json = cluster::planToJSON(program);
  Object *root = json.getAsObject();
  root->insert({"job", given.file});
  root->insert({"source", page.str()});
  return json;
}

FailureOr<Object>
phobos::viz::describeCluster(llvm::SourceMgr &sourceMgr, StringRef kernel,
                             const VisualizationOptions &options,
                             MLIRContext *context) {
  bool planHere = !options.clusterJob.text.empty();
  if (options.clusterPlanText.empty() && !planHere) {
    if (!options.clusterSummaryText.empty()) {
      emitError(FileLineColLoc::get(context, options.clusterSummaryFile, 1, 1))
          << "a cluster summary needs the plan it ran (a job, or the plan "
             "phobos-sched --plan JOB --json wrote)";
      return failure();
    }
    return Object{{"note", "no cluster job or plan given (phobos-viz "
                           "--cluster-job JOB plans one)"}};
  }
  Location at = FileLineColLoc::get(
      context, planHere ? options.clusterJob.file : options.clusterPlanFile,
      1, 1);
  auto notAPlan = [&](const llvm::Twine &why) -> FailureOr<Object> {
    emitError(at) << "not a cluster plan (phobos-sched --plan JOB --json): "
                  << why;
    return failure();
  };
  std::optional<JsonValue> parsed;
  if (planHere) {
    FailureOr<JsonValue> planned =
        planJob(sourceMgr, kernel, options, context);
    if (failed(planned))
      return failure();
    parsed = std::move(*planned);
  } else {
    llvm::Expected<JsonValue> read = parseJson(options.clusterPlanText);
    if (!read)
      return notAPlan(llvm::toString(read.takeError()));
    parsed = std::move(*read);
  }
  const Object *plan = parsed->getAsObject();
  if (!plan)
    return notAPlan("it is not a JSON object");
  StringRef program = plan->getString("program").value_or("");
  if (program != kernel) {
    emitError(at) << "the cluster plan is of program '" << program
                  << "', not kernel '" << kernel << "'";
    return failure();
  }
  std::vector<Instruction> instructions;
  std::string problem = readInstructions(*plan, instructions);
  if (!problem.empty())
    return notAPlan(problem);
  int64_t nodes = plan->getInteger("nodes").value_or(0);
  llvm::DenseMap<int64_t, size_t> byId;
  for (auto [index, instruction] : llvm::enumerate(instructions)) {
    if (!byId.try_emplace(instruction.id, index).second)
      return notAPlan("instruction id " + std::to_string(instruction.id) +
                      " is used twice");
    if (instruction.node < 0 || instruction.node >= nodes ||
        (instruction.kind == "fetch" &&
         (instruction.from < 0 || instruction.from >= nodes)))
      return notAPlan("instruction " + std::to_string(instruction.id) +
                      " names a node outside the plan's " +
                      std::to_string(nodes));
  }
  // A fetch's source: the instruction on its holder that brings the tile
  // in (a load, or the compute that writes it).
  std::map<std::pair<int64_t, int64_t>, int64_t> holder;
  for (const Instruction &instruction : instructions)
    for (int64_t tile : instruction.holds)
      if (instruction.kind != "allocate" ||
          !holder.count({instruction.node, tile}))
        holder[{instruction.node, tile}] = instruction.id;
  for (Instruction &instruction : instructions)
    if (instruction.kind == "fetch") {
      auto found = holder.find({instruction.from, instruction.tile});
      if (found != holder.end())
        instruction.source = found->second;
    }
  // Levels: the longest chain of dependencies (and fetch sources) before
  // each instruction, with a check for cycles.
  std::vector<int> state(instructions.size(), 0); // 1: visiting, 2: done
  int64_t depth = 0;
  std::string cycle;
  std::function<int64_t(size_t)> levelOf = [&](size_t index) -> int64_t {
    Instruction &instruction = instructions[index];
    if (state[index] == 2)
      return instruction.level;
    if (state[index] == 1) {
      cycle = "instruction " + std::to_string(instruction.id) +
              " depends on itself";
      return 0;
    }
    state[index] = 1;
    int64_t level = 0;
    llvm::SmallVector<int64_t> before(instruction.deps.begin(),
                                      instruction.deps.end());
    if (instruction.source >= 0)
      before.push_back(instruction.source);
    for (int64_t dep : before) {
      auto found = byId.find(dep);
      if (found == byId.end()) {
        cycle = "instruction " + std::to_string(instruction.id) +
                " depends on an unknown id " + std::to_string(dep);
        return 0;
      }
      level = std::max(level, levelOf(found->second) + 1);
      if (!cycle.empty())
        return 0;
    }
    state[index] = 2;
    instruction.level = level;
    depth = std::max(depth, level + 1);
    return level;
  };
  for (size_t index = 0; index < instructions.size() && cycle.empty(); ++index)
    levelOf(index);
  if (!cycle.empty())
    return notAPlan(cycle);

  Array rows;
  std::map<std::pair<int64_t, int64_t>, int64_t> links;
  struct Totals {
    int64_t instructions = 0, computes = 0, loaded = 0, fetched = 0,
            served = 0, stored = 0;
  };
  std::vector<Totals> totals(nodes);
  for (const Instruction &instruction : instructions) {
    Object row{{"id", instruction.id},
               {"node", instruction.node},
               {"kind", instruction.kind},
               {"bytes", instruction.bytes},
               {"deps", Array(instruction.deps)},
               {"label", instruction.label},
               {"level", instruction.level}};
    Totals &total = totals[instruction.node];
    ++total.instructions;
    if (instruction.kind == "compute") {
      row["leaf"] = instruction.leaf;
      ++total.computes;
    } else if (instruction.kind == "load") {
      total.loaded += instruction.bytes;
    } else if (instruction.kind == "store") {
      total.stored += instruction.bytes;
    } else if (instruction.kind == "fetch") {
      row["from"] = instruction.from;
      if (instruction.source >= 0)
        row["source"] = instruction.source;
      total.fetched += instruction.bytes;
      totals[instruction.from].served += instruction.bytes;
      links[{instruction.from, instruction.node}] += instruction.bytes;
    }
    rows.push_back(std::move(row));
  }
  Array linkRows;
  for (auto &[pair, bytes] : links)
    linkRows.push_back(
        Object{{"from", pair.first}, {"to", pair.second}, {"bytes", bytes}});
  Array totalRows;
  const Array *programs = plan->getArray("node_programs");
  for (auto [node, total] : llvm::enumerate(totals)) {
    int64_t peak = 0;
    for (const JsonValue &program : *programs)
      if (const Object *object = program.getAsObject())
        if (object->getInteger("node") == static_cast<int64_t>(node))
          peak = object->getInteger("peak_bytes").value_or(0);
    totalRows.push_back(Object{{"node", static_cast<int64_t>(node)},
                               {"instructions", total.instructions},
                               {"computes", total.computes},
                               {"loaded", total.loaded},
                               {"fetched", total.fetched},
                               {"served", total.served},
                               {"stored", total.stored},
                               {"peak_bytes", peak}});
  }
  auto copy = [&](StringRef key) -> JsonValue {
    const JsonValue *value = plan->get(key);
    return value ? *value : JsonValue(nullptr);
  };
  Object result{{"job", copy("job")},
                {"program", program.str()},
                {"nodes", nodes},
                {"dims", copy("dims")},
                {"bindings", copy("bindings")},
                {"tensors", copy("tensors")},
                {"leaves", copy("leaves")},
                {"instructions", std::move(rows)},
                {"levels", depth},
                {"links", std::move(linkRows)},
                {"node_totals", std::move(totalRows)}};

  if (!options.clusterSummaryText.empty()) {
    Location summaryAt =
        FileLineColLoc::get(context, options.clusterSummaryFile, 1, 1);
    llvm::Expected<JsonValue> summary = parseJson(options.clusterSummaryText);
    const Object *object = summary ? summary->getAsObject() : nullptr;
    const Array *summaryNodes = object ? object->getArray("nodes") : nullptr;
    if (!summaryNodes) {
      emitError(summaryAt)
          << "not a job summary (phobos-sched --summary-json): "
          << (summary ? std::string("it has no \"nodes\" array")
                      : llvm::toString(summary.takeError()));
      return failure();
    }
    StringRef ran = object->getString("program").value_or("");
    if (ran != program) {
      emitError(summaryAt) << "the job summary is of program '" << ran
                           << "', not '" << program << "'";
      return failure();
    }
    // The measured timeline (each node's [segment, instruction, start,
    // end] rows): checked, and counted against the plan (segment 0; a
    // re-planned segment's instructions are not in it).
    std::set<std::pair<int64_t, int64_t>> planned;
    for (const Instruction &instruction : instructions)
      planned.insert({instruction.node, instruction.id});
    int64_t measured = 0, timed = 0;
    for (auto [index, entry] : llvm::enumerate(*summaryNodes)) {
      const Object *node = entry.getAsObject();
      const Array *timeline = node ? node->getArray("timeline") : nullptr;
      if (!timeline)
        continue;
      int64_t nodeIndex = node->getInteger("node").value_or(-1);
      for (const JsonValue &row : *timeline) {
        const Array *cells = row.getAsArray();
        std::optional<int64_t> segment, id;
        std::optional<double> start, end;
        if (cells && cells->size() == 4) {
          segment = (*cells)[0].getAsInteger();
          id = (*cells)[1].getAsInteger();
          start = (*cells)[2].getAsNumber();
          end = (*cells)[3].getAsNumber();
        }
        if (!segment || !id || !start || !end || *end < *start) {
          emitError(summaryAt)
              << "not a job summary (phobos-sched --summary-json): node "
              << index << "'s timeline has a row that is not [segment, "
              << "instruction, start, end] with end >= start";
          return failure();
        }
        ++timed;
        measured += *segment == 0 && planned.count({nodeIndex, *id});
      }
    }
    result["summary"] =
        Object{{"seconds", object->getNumber("seconds").value_or(0.0)},
               {"flops", object->getNumber("flops").value_or(0.0)},
               {"nodes", JsonValue(Array(*summaryNodes))},
               {"timed_instructions", timed},
               {"measured_instructions", measured}};
  }
  return result;
}

Object
phobos::viz::describeClusterProgram(llvm::SourceMgr &sourceMgr,
                                    MLIRContext *context, StringRef kernel,
                                    const VisualizationOptions &options) {
  // The split's errors are the page's note, not the page's failure: the
  // single-GPU panels stand without it.
  std::string errors;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      errors += (errors.empty() ? "" : "; ") + diagnostic.str();
    return success();
  });
  OwningOpRef<ModuleOp> module =
      importClusterProgram(sourceMgr, context, kernel, options);
  if (!module)
    return Object{{"note", "phobos-cluster-split refused the kernel: " +
                               errors}};
  Array lines;
  for (cluster::ProgramOp program : module->getOps<cluster::ProgramOp>()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    program->print(os);
    llvm::SmallVector<StringRef> split;
    StringRef(text).split(split, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef line : split)
      lines.push_back(line.str());
  }
  return Object{{"lines", std::move(lines)}};
}
