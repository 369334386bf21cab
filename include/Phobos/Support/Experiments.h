//===- Experiments.h - A/B settings of one tool run --------------*- C++ -*-===//
//
// The settings an A/B measurement changes that no kernel needs: leave an
// optional pass out, other ptxas options, another LLVM level, a spill relief
// or a pipeline option fixed for every kernel, the compile pool's assembler
// and allocator. They were environment variables read deep in the
// libraries, where they silently changed what every caller compiled; now a
// tool's `--experiment NAME=VALUE` flag (phobos-compile, phobos-run,
// phobos-tune) sets them once, before anything compiles, and nothing else
// does: libphobos and the Python package never have any. Those that change
// compiled code are named in the compiler's version (compilerVersion), so
// such kernels stay apart in the kernel cache. docs/runtime.md lists them.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_SUPPORT_EXPERIMENTS_H
#define PHOBOS_SUPPORT_EXPERIMENTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phobos {

struct Experiments {
  /// Optional passes the GPU pipeline leaves out (`without=a:b`).
  std::vector<std::string> disabledPasses;
  /// Options added to every ptxas and nvJitLink assembly (`ptxas=-Ofc=min`,
  /// split at spaces).
  std::vector<std::string> ptxasOptions;
  /// LLVM's IR optimisation level, 0 to 3 (`llvm-opt-level=3`; default 1).
  std::optional<unsigned> llvmOptLevel;
  /// A spill relief fixed for every kernel (`lean-addresses=0|1`,
  /// `keep-invariants=0|1`).
  std::optional<bool> leanAddresses, keepInvariants;
  /// A pipeline option fixed for every kernel, over the kernel's own
  /// (`fma-k-unroll=N`, `sync-dots=0|1`, `async-staging=0|1`,
  /// `wgmma-fragment-steps=N`, `fold-ragged=0|1`, `drain-ring=0|1`,
  /// `epilogue-order=0|1`, `tma-invariants=0|1`).
  std::optional<int64_t> fmaKUnroll, wgmmaFragmentSteps;
  std::optional<bool> syncDots, asyncStaging, foldRagged, drainRing,
      epilogueOrder, tmaInvariants;
  /// The first assembly of a kernel is kept even where ptxas spills
  /// (`spill-relief=0`): no retry at another occupancy or consumer register
  /// count, no relieved recompile. To measure what a relief costs against
  /// the spills it removes (a relief may drop a schedule, such as the dots
  /// in flight of warp-specialised attention).
  bool keepSpills = false;
  /// Verify the IR after every pass of the GPU pipeline, not once at its end
  /// (`verify-each=1`); the code is the same.
  bool verifyEach = false;
  /// The compile pool assembles with the ptxas process, not nvJitLink
  /// (`assembler=ptxas`); the code is the same.
  bool ptxasProcess = false;
  /// The compile pool keeps glibc's allocator settings
  /// (`allocator-defaults=1`); the code is the same.
  bool allocatorDefaults = false;

  /// Parses `NAME=VALUE` settings (each flag's value); an error names the
  /// setting and says what it takes.
  static llvm::Expected<Experiments> parse(llvm::ArrayRef<std::string> settings);

  /// The settings that change compiled code, as the compiler's version
  /// names them ("+without:tile-pingpong+ptxas:-Ofc=min"); empty for none.
  std::string versionLabel() const;
};

/// The settings names and what each takes, one line each (for --help and
/// the docs).
llvm::ArrayRef<std::pair<llvm::StringLiteral, llvm::StringLiteral>>
experimentSettings();

/// This process's experiments: none unless a tool set them.
const Experiments &getExperiments();

/// Sets this process's experiments. Only before anything read them (a tool
/// does it right after parsing its options); later is a programming error.
void setExperiments(Experiments experiments);

/// Parses a tool's --experiment values and sets them (none: nothing).
llvm::Error applyExperiments(llvm::ArrayRef<std::string> settings);

/// The description of the --experiment flag, for the tools' --help.
constexpr const char *kExperimentFlagHelp =
    "An A/B setting for measurements, NAME=VALUE, repeatable (without, "
    "ptxas, llvm-opt-level, lean-addresses, keep-invariants, fma-k-unroll, "
    "sync-dots, async-staging, fold-ragged, drain-ring, epilogue-order, "
    "tma-invariants, "
    "spill-relief, "
    "wgmma-fragment-steps, verify-each, assembler, allocator-defaults: "
    "docs/runtime.md section 11)";

} // namespace phobos

#endif // PHOBOS_SUPPORT_EXPERIMENTS_H
