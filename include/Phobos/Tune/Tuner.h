//===- Tuner.h - Search a kernel's @autotune space ---------------*- C++ -*-===//
//
// The autotuner behind phobos-tune and the Python package's ph.autotune:
// it enumerates a kernel's @autotune space, drops the variants that cannot
// run on the problem (@aligned promises, static extents, shared memory),
// compiles the rest in parallel on every core (each at most once, through
// the kernel cache), checks every variant against a reference on fresh
// random inputs, times the ones that pass (CUDA events after warm-up,
// median, the L2 flushed before every run), and stores the winner in the
// tuning cache (Phobos/Runtime/TuningCache.h) keyed by kernel, chip and
// problem shape, so that the next launch uses it without searching.
//
// The checking and timing go through a backend: the GPU (the CUDA driver)
// or the CPU interpreter, which stands in for the GPU where there is none
// (its "time" is the interpreter's wall clock), so the whole search runs
// in tests without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TUNE_TUNER_H
#define PHOBOS_TUNE_TUNER_H

#include "Phobos/Runtime/HostTensor.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phobos::reference {
class Catalog;
} // namespace phobos::reference

namespace phobos::tune {

/// A value for every @autotune name, in source order.
using Variant = std::vector<std::pair<std::string, int64_t>>;

/// `TILE_M=128,TILE_N=64`.
std::string variantText(const Variant &variant);

/// How the variants are checked.
enum class CheckMode {
  /// A float64 reference of Options::references (by name), on the timed
  /// problem.
  Reference,
  /// Expected outputs given as arrays (`--check-input`/`--expect`): what
  /// the Python package passes for a reference written in Python.
  Expected,
  /// The interpreter runs the kernel on a small problem; every variant
  /// must agree with it.
  Interpreter,
  /// Only that every output element is written and finite.
  None,
};

/// A problem: the dims bound at launch, scalars, how tensors are filled.
struct Problem {
  /// Every named extent (dims bound at launch; an @autotune name that is
  /// also an extent, when given).
  llvm::StringMap<int64_t> dims;
  /// Scalars given; the others take seeded values as in phobos-run.
  llvm::StringMap<double> scalars;
  /// Those given as integers, exactly (an i64 beyond 2^53 is no double).
  llvm::StringMap<int64_t> integerScalars;
  /// `--init NAME=random|uniform:LO:HI|iota|V`.
  llvm::StringMap<std::string> inits;
  /// Tensors given whole (`--input`, `--check-input`).
  std::map<std::string, HostTensor> inputs;
  /// An explicit grid for every variant, or one per variant (by
  /// variantText), else the launch contract's.
  std::optional<std::array<int64_t, 3>> grid;
  std::map<std::string, std::array<int64_t, 3>> grids;
};

struct Options {
  std::string sourceFile;
  /// The source text (the kernel cache's key holds it).
  std::string source;
  /// The kernel (empty: the file's only kernel).
  std::string kernel;
  /// A span map (the Python package's kernels), for diagnostics.
  std::string spanMapFile;

  /// `gpu` or `interpreter`.
  std::string backend = "gpu";
  /// The chip to compile for; empty: the device's (sm_90 without one).
  std::string chip;
  /// Compile threads; 0: one per core.
  unsigned jobs = 0;
  /// Stop after compiling (no backend): what the compile-speed
  /// measurements use.
  bool compileOnly = false;
  bool useCubin = true;
  std::string cacheDir;

  /// Restrict the search: fixed values, or an explicit list of variants.
  llvm::StringMap<int64_t> fixed;
  std::vector<llvm::StringMap<int64_t>> variants;

  Problem problem;
  CheckMode check = CheckMode::Reference;
  /// The float64 references CheckMode::Reference chooses from (phobos-tune
  /// passes the examples', examples/references); none: a kernel is checked
  /// on the interpreter instead.
  const reference::Catalog *references = nullptr;
  /// The float64 reference (empty: the one `references` names for the
  /// kernel).
  std::string reference;
  /// The check problem of CheckMode::Interpreter and Expected (dims, and
  /// the given tensors); empty dims: chosen small (smallCheckDims).
  Problem checkProblem;
  /// Expected outputs (CheckMode::Expected), by tensor name.
  std::map<std::string, HostTensor> expected;
  /// Largest accepted relative error; negative: 1e-5, or 1e-2 in reduced
  /// precision.
  double tolerance = -1;
  uint64_t seed = 0;

  unsigned warmup = 3;
  unsigned repeat = 20;
  /// The fastest few are timed again, `refineRepeat` runs each, in rounds.
  unsigned refineTop = 3;
  unsigned refineRepeat = 50;
  bool flushL2 = true;

  /// Only work out the small problem the interpreter would check on (the
  /// front end runs, nothing compiles): `Report::checkDims`. The Python
  /// package asks, to compute that problem's grids.
  bool checkDimsOnly = false;
  /// Compile every variant specialised for the extents' divisibility by 2,
  /// 4, 8 or 16, as phobos-run compiles GPU launches by default, so that
  /// the variant timed is the one launched. Only for extents every launch
  /// of the search shares: the timed problem's, and for a different check
  /// problem the power of two that divides both (none when that problem is
  /// chosen later, smallCheckDims).
  bool specialize = true;
  /// Search even when the tuning cache has an answer.
  bool force = false;
  /// Do not store the winner.
  bool noStore = false;
  /// Progress on `progress` (stderr); none when null.
  llvm::raw_ostream *progress = nullptr;
  /// Rewrite the progress line in place (a terminal).
  bool progressInPlace = false;
};

/// What became of one variant.
struct VariantResult {
  Variant variant;
  enum class Status {
    Pending,
    Pruned,       ///< cannot run on this problem or chip; not compiled
    CompileError, ///< the compiler rejected it
    Failed,       ///< it did not load or run
    Wrong,        ///< it ran and its check failed
    Ok,           ///< checked and timed
  };
  Status status = Status::Pending;
  std::string reason;
  double timeMs = -1;
  std::vector<double> samplesMs;
  double maxRelErr = -1;
  bool cached = false;
  double frontendMs = 0, passesMs = 0, llvmMs = 0, ptxasMs = 0;
  /// Wall time from the start of compiling to a cache entry.
  double compileMs = 0;
  int64_t sharedBytes = -1;
  int registers = -1, spillBytes = -1;
};

/// Everything one search found.
struct Report {
  std::string kernel, file, chip, device, backend, checkedWith;
  llvm::StringMap<int64_t> dims;
  /// The interpreter's check problem (Options::checkDimsOnly).
  llvm::StringMap<int64_t> checkDims;
  /// The @aligned promises every variant was specialised with (empty: the
  /// general kernels).
  std::vector<std::pair<std::string, int64_t>> specialized;
  std::vector<std::string> variantOrder;
  std::vector<VariantResult> results;
  /// Index into `results` of the winner; -1 when nothing passed.
  int best = -1;
  /// True when the answer came from the tuning cache (no search).
  bool fromCache = false;
  double wallSeconds = 0, compileSeconds = 0;
  unsigned jobs = 0;
  std::string date;

  /// The table: every variant, its time and ratio to the best, or why it
  /// was dropped.
  void printTable(llvm::raw_ostream &os) const;
  llvm::json::Value toJSON() const;
  static llvm::Expected<Report> fromJSON(const llvm::json::Value &json);
};

/// The small problem the interpreter checks on: `dims` with the largest
/// extents halved (staying multiples of `multiples`, the @aligned
/// multiples of every variant) until no tensor holds more than 2^17
/// elements. `tensors` lists each tensor's dim names.
llvm::StringMap<int64_t>
smallCheckDims(const llvm::StringMap<int64_t> &dims,
               const std::vector<std::vector<std::string>> &tensors,
               const llvm::StringMap<int64_t> &multiples);

/// Runs the search. Errors that stop it (no such kernel, an unusable
/// problem, no GPU) are returned; a variant's failure is in its result.
llvm::Expected<Report> tune(const Options &options);

} // namespace phobos::tune

#endif // PHOBOS_TUNE_TUNER_H
