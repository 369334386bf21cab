//===- KernelOptions.h - Command-line options the kernel tools share -----===//
//
// phobos-run, phobos-tune and phobos-viz each take a kernel source and a
// problem to run it on (dims, scalars, a grid, a chip, a span map, the
// kernel cache); phobos-run and phobos-viz take a variant, phobos-run and
// phobos-tune fill, check and time inputs; phobos-sched and phobos-viz
// (--cluster-job) plan a cluster job. phobos-sched, which takes a job
// rather than a kernel, takes the variant, the chip and the kernel cache
// alone. Each of those options is declared here once, with its value form,
// its parsing and its errors; a tool gives the help text where the option
// means more for it, so that every tool's --help still says what the
// option does there.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_KERNELOPTIONS_H
#define PHOBOS_TOOLS_KERNELOPTIONS_H

#include "Phobos/Frontend/SpanMap.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace phobos::tools {

/// Prints "TOOL: MESSAGE" on standard error and exits with status 2, the
/// status of a usage error in every Phobos tool.
[[noreturn]] void exitWithUsage(llvm::StringRef tool,
                                const llvm::Twine &message);

/// Splits NAME=VALUE into its two sides, trimmed; false when either is
/// empty.
bool parseBinding(llvm::StringRef spec, llvm::StringRef &name,
                  llvm::StringRef &value);

/// Dims given as NAME=INTEGER with --`option`: each an extent between 1 and
/// INT32_MAX (the kernels' index width), each named once. A usage error
/// otherwise.
llvm::StringMap<int64_t> parseDims(llvm::StringRef tool,
                                   llvm::StringRef option,
                                   llvm::ArrayRef<std::string> specs);

/// Scalars given as NAME=NUMBER: every value as a double, and those written
/// as integers also exactly (an i64 beyond 2^53 is no double).
struct ScalarValues {
  llvm::StringMap<double> values;
  llvm::StringMap<int64_t> integers;
};

/// --chip sm_XY: the GPU to compile for.
class ChipOption : public llvm::cl::opt<std::string> {
public:
  ChipOption(llvm::cl::OptionCategory &category, const char *help);

  /// A value that names no chip Phobos targets is a usage error of `tool`,
  /// found before any GPU is opened.
  void check(llvm::StringRef tool) const;
  /// The value, else `fallback`.
  std::string valueOr(llvm::StringRef fallback) const;
};

/// --cache-dir DIR: the kernel cache.
class CacheDirOption : public llvm::cl::opt<std::string> {
public:
  CacheDirOption(llvm::cl::OptionCategory &category, const char *help);

  /// The value, else $PHOBOS_CACHE_DIR, else ~/.cache/phobos.
  std::string directory() const;
};

/// The kernel and the problem: the options all three tools take.
class KernelOptions {
public:
  /// Each tool's words for the options; the defaults fit a tool that says
  /// nothing more.
  struct Help {
    const char *input = "<kernel.ph>";
    const char *kernel = "The kernel (where the file has several)";
    const char *dim = "A dim's extent";
    const char *scalar = "A scalar argument";
    const char *grid = "The grid (default: the one the kernel's slices "
                       "infer from --dim)";
    const char *chip = "The GPU to compile for";
    const char *spanMap = "Report diagnostics at the places this span map "
                          "gives (a generated program's origin)";
    const char *cacheDir = "The kernel cache (default: $PHOBOS_CACHE_DIR, "
                           "else ~/.cache/phobos)";
  };

  KernelOptions(llvm::StringRef tool, llvm::cl::OptionCategory &category,
                const Help &help);

  llvm::cl::opt<std::string> inputFile;
  llvm::cl::opt<std::string> kernelName;
  llvm::cl::list<std::string> dimSpecs;
  llvm::cl::list<std::string> scalarSpecs;
  llvm::cl::opt<std::string> gridSpec;
  ChipOption chip;
  llvm::cl::opt<std::string> spanMapFile;
  CacheDirOption cacheDir;

  /// A usage error of this tool: "TOOL: MESSAGE", exit status 2.
  [[noreturn]] void usage(const llvm::Twine &message) const;

  /// --dim, checked as parseDims checks.
  llvm::StringMap<int64_t> dims() const;
  /// --grid X[,Y[,Z]] of extents between 1 and INT32_MAX; nullopt when not
  /// given.
  std::optional<std::array<int64_t, 3>> grid() const;
  /// --scalar as NAME=NUMBER, each named once (phobos-run reads them by
  /// the parameter's type instead).
  ScalarValues scalars() const;
  /// A --chip that names no chip Phobos targets is a usage error, found
  /// before any GPU is opened.
  void checkChip() const;
  /// --chip, else `fallback`.
  std::string chipOr(llvm::StringRef fallback) const;
  /// --cache-dir, else $PHOBOS_CACHE_DIR, else ~/.cache/phobos.
  std::string cacheDirectory() const;
  /// The span map --span-map names; nullopt when not given.
  std::optional<frontend::SpanMap> readSpanMap() const;

private:
  std::string tool;
};

/// --variant NAME=V,...: the @autotune values of one variant (phobos-run,
/// phobos-viz; phobos-sched's are of the leaves).
class VariantOption {
public:
  explicit VariantOption(llvm::cl::OptionCategory &category,
                         const char *help = "@autotune values: NAME=V,NAME=V");

  llvm::cl::opt<std::string> spec;

  /// The values; a usage error of `tool` when the text is not NAME=V,...
  llvm::StringMap<int64_t> parse(llvm::StringRef tool) const;
};

/// What a tool that fills inputs, checks outputs and times runs takes
/// (phobos-run, phobos-tune).
class MeasureOptions {
public:
  struct Help {
    const char *init = "How to fill a tensor: random (default, uniform in "
                       "[-1, 1)), uniform:LO:HI, iota, or a number";
    const char *seed = "Seed of the random inputs";
    const char *reference = "The float64 reference to check against";
    const char *tolerance = "Largest accepted relative error (default "
                            "1e-5, 1e-2 for f16/bf16 and tensor-core dots)";
    const char *warmup = "Untimed launches before timing";
    const char *repeat = "Timed launches (median)";
    const char *noSpecialize = "Compile the general kernel, not one "
                               "specialised for the extents' divisibility "
                               "by 2, 4, 8 or 16";
  };

  MeasureOptions(llvm::StringRef tool, llvm::cl::OptionCategory &category,
                 const Help &help);

  llvm::cl::list<std::string> experiments;
  llvm::cl::list<std::string> initSpecs;
  llvm::cl::opt<uint64_t> seed;
  llvm::cl::opt<std::string> referenceName;
  llvm::cl::opt<double> tolerance;
  llvm::cl::opt<unsigned> warmup;
  llvm::cl::opt<unsigned> repeat;
  llvm::cl::opt<bool> noSpecialize;

  /// --experiment applied for this run; a usage error when one is unknown.
  void applyExperiments() const;
  /// --init NAME=HOW, each tensor named once; what HOW means is checked
  /// where the tensor is filled.
  llvm::StringMap<std::string> inits() const;

private:
  std::string tool;
};

/// How a cluster job is planned: phobos-sched (--plan, and a run on pods)
/// and phobos-viz (--cluster-job) plan the same way, so they take the same
/// options with the same checks and messages.
class ClusterPlanOptions {
public:
  struct Help {
    const char *nodes = "The nodes to plan for";
    const char *vram = "A node's memory in bytes (default: no limit)";
    const char *cluster = "@cluster sizes: NAME=V,... (the rest take their "
                          "first value)";
    const char *ingest = "fetch: each input super-tile is loaded once and "
                         "fetched by the other nodes; direct: every node "
                         "loads its own";
  };

  ClusterPlanOptions(llvm::StringRef tool, llvm::cl::OptionCategory &category,
                     const Help &help);

  llvm::cl::opt<int64_t> nodes;
  llvm::cl::opt<int64_t> vram;
  llvm::cl::opt<std::string> clusterSizes;
  llvm::cl::opt<std::string> ingest;

  struct Values {
    int64_t nodes = 1;
    /// 0: no limit.
    int64_t vramBytes = 0;
    /// The @cluster sizes given; the others take their first value.
    llvm::StringMap<int64_t> sizes;
    /// Every node loads its own input super-tiles rather than fetching them
    /// from the node that loaded them.
    bool directIngest = false;
  };

  /// The options, checked: --nodes at least 1, --vram at least 0, --cluster
  /// as NAME=V,... of positive values each named once, --ingest fetch or
  /// direct. A usage error otherwise.
  Values parse() const;

  /// The first of these options the command line gives; nullptr when none.
  /// For a tool where they belong to one of its modes.
  const llvm::cl::Option *firstGiven() const;

private:
  std::string tool;
};

} // namespace phobos::tools

#endif // PHOBOS_TOOLS_KERNELOPTIONS_H
