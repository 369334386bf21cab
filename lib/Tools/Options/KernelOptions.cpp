//===- KernelOptions.cpp - Command-line options the kernel tools share ---===//
//
// The options' declarations and their parsing; see KernelOptions.h.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Tools/KernelOptions.h"

#include "Phobos/Dialect/Cluster/Transforms/Planning.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/Support/Experiments.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <cstdlib>
#include <initializer_list>
#include <vector>

namespace cl = llvm::cl;

namespace phobos::tools {

void exitWithUsage(llvm::StringRef tool, const llvm::Twine &message) {
  llvm::errs() << tool << ": " << message << "\n";
  std::exit(2);
}

bool parseBinding(llvm::StringRef spec, llvm::StringRef &name,
                  llvm::StringRef &value) {
  std::tie(name, value) = spec.split('=');
  name = name.trim();
  value = value.trim();
  return !name.empty() && !value.empty();
}

llvm::StringMap<int64_t> parseDims(llvm::StringRef tool,
                                   llvm::StringRef option,
                                   llvm::ArrayRef<std::string> specs) {
  llvm::StringMap<int64_t> dims;
  for (const std::string &spec : specs) {
    llvm::StringRef name, text;
    int64_t value;
    if (!parseBinding(spec, name, text) || text.getAsInteger(10, value))
      exitWithUsage(tool, "--" + option + " expects NAME=INTEGER, got '" +
                              spec + "'");
    if (value <= 0 || value > INT32_MAX)
      exitWithUsage(tool, "--" + option + " " + name + "=" + text +
                              ": extents must be between 1 and " +
                              llvm::Twine(INT32_MAX) +
                              " (the kernel's index width is 32 bits)");
    if (!dims.try_emplace(name, value).second)
      exitWithUsage(tool, "--" + option + " " + name + " is given twice (" +
                              name + "=" + llvm::Twine(dims.lookup(name)) +
                              " and " + name + "=" + text + ")");
  }
  return dims;
}

ChipOption::ChipOption(cl::OptionCategory &category, const char *help)
    : cl::opt<std::string>("chip", cl::desc(help), cl::value_desc("sm_XY"),
                           cl::cat(category)) {}

void ChipOption::check(llvm::StringRef tool) const {
  if (!empty() && !isValidChip(getValue()))
    exitWithUsage(tool, "--chip: unsupported chip '" + getValue() +
                            "'; Phobos targets " + supportedChips());
}

std::string ChipOption::valueOr(llvm::StringRef fallback) const {
  return empty() ? fallback.str() : getValue();
}

CacheDirOption::CacheDirOption(cl::OptionCategory &category, const char *help)
    : cl::opt<std::string>("cache-dir", cl::desc(help), cl::value_desc("DIR"),
                           cl::cat(category)) {}

std::string CacheDirOption::directory() const {
  return empty() ? defaultKernelCacheDir() : getValue();
}

KernelOptions::KernelOptions(llvm::StringRef tool,
                             cl::OptionCategory &category, const Help &help)
    : inputFile(cl::Positional, cl::desc(help.input), cl::Required,
                cl::cat(category)),
      kernelName("kernel", cl::desc(help.kernel), cl::value_desc("NAME"),
                 cl::cat(category)),
      dimSpecs("dim", cl::desc(help.dim), cl::value_desc("NAME=V"),
               cl::cat(category)),
      scalarSpecs("scalar", cl::desc(help.scalar), cl::value_desc("NAME=V"),
                  cl::cat(category)),
      gridSpec("grid", cl::desc(help.grid), cl::value_desc("X[,Y[,Z]]"),
               cl::cat(category)),
      chip(category, help.chip),
      spanMapFile("span-map", cl::desc(help.spanMap), cl::value_desc("FILE"),
                  cl::cat(category)),
      cacheDir(category, help.cacheDir), tool(tool.str()) {}

void KernelOptions::usage(const llvm::Twine &message) const {
  exitWithUsage(tool, message);
}

llvm::StringMap<int64_t> KernelOptions::dims() const {
  return parseDims(tool, "dim", dimSpecs);
}

std::optional<std::array<int64_t, 3>> KernelOptions::grid() const {
  if (gridSpec.empty())
    return std::nullopt;
  std::array<int64_t, 3> grid = {1, 1, 1};
  llvm::SmallVector<llvm::StringRef, 3> parts;
  llvm::StringRef(gridSpec).split(parts, ',');
  bool ok = parts.size() <= 3;
  for (auto [axis, part] : llvm::enumerate(parts))
    if (ok && (part.trim().getAsInteger(10, grid[axis]) || grid[axis] < 1 ||
               grid[axis] > INT32_MAX))
      ok = false;
  if (!ok)
    usage("--grid expects X[,Y[,Z]] of extents between 1 and " +
          llvm::Twine(INT32_MAX) + ", got '" + gridSpec + "'");
  return grid;
}

ScalarValues KernelOptions::scalars() const {
  ScalarValues scalars;
  for (const std::string &spec : scalarSpecs) {
    llvm::StringRef name, text;
    double value;
    if (!parseBinding(spec, name, text) || text.getAsDouble(value))
      usage("--scalar expects NAME=NUMBER, got '" + spec + "'");
    if (!scalars.values.try_emplace(name, value).second)
      usage("--scalar " + name + " is given twice");
    int64_t integer;
    if (!text.getAsInteger(10, integer))
      scalars.integers[name] = integer;
  }
  return scalars;
}

void KernelOptions::checkChip() const { chip.check(tool); }

std::string KernelOptions::chipOr(llvm::StringRef fallback) const {
  return chip.valueOr(fallback);
}

std::string KernelOptions::cacheDirectory() const {
  return cacheDir.directory();
}

std::optional<frontend::SpanMap> KernelOptions::readSpanMap() const {
  if (spanMapFile.empty())
    return std::nullopt;
  llvm::Expected<frontend::SpanMap> map =
      frontend::SpanMap::readFile(spanMapFile);
  if (!map)
    usage(llvm::toString(map.takeError()));
  return std::move(*map);
}

VariantOption::VariantOption(cl::OptionCategory &category, const char *help)
    : spec("variant", cl::desc(help), cl::value_desc("NAME=V,..."),
           cl::cat(category)) {}

llvm::StringMap<int64_t> VariantOption::parse(llvm::StringRef tool) const {
  llvm::StringMap<int64_t> variant;
  std::string problem = frontend::parseVariantSpec(spec, variant);
  if (!problem.empty())
    exitWithUsage(tool, "--variant: " + problem);
  if (spec.getNumOccurrences() && variant.empty())
    exitWithUsage(tool, "--variant expects NAME=V,..., got '" + spec + "'");
  return variant;
}

MeasureOptions::MeasureOptions(llvm::StringRef tool,
                               cl::OptionCategory &category, const Help &help)
    : experiments("experiment", cl::desc(kExperimentFlagHelp),
                  cl::value_desc("NAME=VALUE"), cl::cat(category)),
      initSpecs("init", cl::desc(help.init),
                cl::value_desc("NAME=random|uniform:LO:HI|iota|V"),
                cl::cat(category)),
      seed("seed", cl::desc(help.seed), cl::init(0), cl::cat(category)),
      referenceName("reference", cl::desc(help.reference),
                    cl::value_desc("NAME"), cl::cat(category)),
      tolerance("tolerance", cl::desc(help.tolerance), cl::init(-1),
                cl::cat(category)),
      warmup("warmup", cl::desc(help.warmup), cl::init(3), cl::cat(category)),
      repeat("repeat", cl::desc(help.repeat), cl::init(20),
             cl::cat(category)),
      noSpecialize("no-specialize", cl::desc(help.noSpecialize),
                   cl::cat(category)),
      tool(tool.str()) {}

void MeasureOptions::applyExperiments() const {
  if (llvm::Error error = phobos::applyExperiments(experiments))
    exitWithUsage(tool, llvm::toString(std::move(error)));
}

llvm::StringMap<std::string> MeasureOptions::inits() const {
  llvm::StringMap<std::string> inits;
  for (const std::string &spec : initSpecs) {
    llvm::StringRef name, how;
    if (!parseBinding(spec, name, how))
      exitWithUsage(tool, "--init expects NAME=random|uniform:LO:HI|iota|V, "
                          "got '" + spec + "'");
    if (!inits.try_emplace(name, how.str()).second)
      exitWithUsage(tool, "--init " + name + " is given twice");
  }
  return inits;
}

ClusterPlanOptions::ClusterPlanOptions(llvm::StringRef tool,
                                       cl::OptionCategory &category,
                                       const Help &help)
    : nodes("nodes", cl::desc(help.nodes), cl::value_desc("N"), cl::init(1),
            cl::cat(category)),
      vram("vram", cl::desc(help.vram), cl::value_desc("BYTES"), cl::init(0),
           cl::cat(category)),
      clusterSizes("cluster", cl::desc(help.cluster),
                   cl::value_desc("NAME=V,..."), cl::cat(category)),
      ingest("ingest", cl::desc(help.ingest), cl::value_desc("fetch|direct"),
             cl::init("fetch"), cl::cat(category)),
      tool(tool.str()) {}

ClusterPlanOptions::Values ClusterPlanOptions::parse() const {
  if (nodes < 1)
    exitWithUsage(tool, "--nodes must be at least 1, got " +
                            llvm::Twine(nodes.getValue()));
  if (vram < 0)
    exitWithUsage(tool, "--vram must be at least 0, got " +
                            llvm::Twine(vram.getValue()));
  if (ingest != "fetch" && ingest != "direct")
    exitWithUsage(tool, "--ingest expects fetch or direct, got '" +
                            ingest.getValue() + "'");
  Values values;
  values.nodes = nodes;
  values.vramBytes = vram;
  values.directIngest = ingest == "direct";
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(clusterSizes).split(items, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> sizes;
  for (llvm::StringRef item : items)
    sizes.push_back(item.str());
  std::string problem =
      cluster::parseNameValues(sizes, values.sizes, "--cluster");
  if (!problem.empty())
    exitWithUsage(tool, problem);
  return values;
}

const cl::Option *ClusterPlanOptions::firstGiven() const {
  for (const cl::Option *option :
       std::initializer_list<const cl::Option *>{&nodes, &vram, &clusterSizes,
                                                 &ingest})
    if (option->getNumOccurrences())
      return option;
  return nullptr;
}

} // namespace phobos::tools
