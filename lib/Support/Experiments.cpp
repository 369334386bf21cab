//===- Experiments.cpp - A/B settings of one tool run ---------------------===//

#include "Phobos/Support/Experiments.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>

using namespace phobos;

static const std::pair<llvm::StringLiteral, llvm::StringLiteral> kSettings[] = {
    {"without", "PASS,... optional passes the GPU pipeline leaves out"},
    {"ptxas", "'OPTIONS' added to every ptxas and nvJitLink assembly"},
    {"llvm-opt-level", "0 to 3: LLVM's IR optimisation level (default 1)"},
    {"lean-addresses", "0 or 1: the lean-addresses spill relief for every kernel"},
    {"keep-invariants", "0 or 1: the keep-invariants spill relief for every kernel"},
    {"fma-k-unroll", "N: steps per iteration of the FMA dots' K loops (0: unrolled whole)"},
    {"sync-dots", "0 or 1: no dot kept in flight"},
    {"async-staging", "0 or 1: loops stage dot operands by asynchronous copies"},
    {"fold-ragged", "0 or 1: TMA pipelines run their ragged remainder as one more iteration"},
    {"drain-ring", "0 or 1: TMA pipelines stage the last deferred dot's operand as one more fill"},
    {"epilogue-order", "0 or 1: accumulator epilogues ordered store by store"},
    {"tma-invariants", "0 or 1: a TMA pipeline's loop-invariant dot operands copied through TMA"},
    {"spill-relief", "0: keep the first assembly even where ptxas spills (no retry, no relief)"},
    {"wgmma-fragment-steps", "N: k-steps per group of a swap_ab wgmma dot"},
    {"verify-each", "1: verify the IR after every pass (the code is the same)"},
    {"assembler", "ptxas: the compile pool runs ptxas, not nvJitLink (the code is the same)"},
    {"allocator-defaults", "1: the compile pool keeps glibc's allocator settings"},
};

/// The optimisations `without=` may leave out (lib/Target/PassPipeline.cpp
/// adds each unless it is named; the kernels stay correct without them).
static constexpr llvm::StringLiteral kOptionalPasses[] = {
    "tile-group-blocks", "tile-persistent", "tile-defer-dots",
    "tile-warp-specialize", "tile-pingpong", "tile-unswitch-loops",
    "tile-skip-full-masks", "tile-fold-transposed-operands",
    "tile-defer-lane-sums"};

llvm::ArrayRef<std::pair<llvm::StringLiteral, llvm::StringLiteral>>
phobos::experimentSettings() {
  return kSettings;
}

llvm::Expected<Experiments>
Experiments::parse(llvm::ArrayRef<std::string> settings) {
  Experiments result;
  for (const std::string &setting : settings) {
    std::pair<llvm::StringRef, llvm::StringRef> parts =
        llvm::StringRef(setting).split('=');
    llvm::StringRef name = parts.first, value = parts.second;
    auto fail = [&](llvm::StringRef takes) {
      return llvm::createStringError(
          llvm::formatv("--experiment {0}: {1} takes {2}", setting, name, takes)
              .str());
    };
    auto flag = [&](std::optional<bool> &into) -> llvm::Error {
      if (value != "0" && value != "1")
        return fail("0 or 1");
      into = value == "1";
      return llvm::Error::success();
    };
    // A setting that takes one value, which turns it on.
    auto only = [&](llvm::StringRef accepted, bool &into) -> llvm::Error {
      if (value != accepted)
        return fail(accepted);
      into = true;
      return llvm::Error::success();
    };
    auto count = [&](std::optional<int64_t> &into) -> llvm::Error {
      int64_t steps;
      if (value.getAsInteger(10, steps) || steps < 0)
        return fail("a step count (0 or more)");
      into = steps;
      return llvm::Error::success();
    };
    llvm::Error error = llvm::Error::success();
    if (name == "without") {
      llvm::SmallVector<llvm::StringRef> passes;
      value.split(passes, ',', -1, /*KeepEmpty=*/false);
      bool known = llvm::all_of(passes, [](llvm::StringRef pass) {
        return llvm::is_contained(kOptionalPasses, pass.trim());
      });
      if (passes.empty() || !known)
        return fail("optional passes (" +
                    llvm::join(llvm::ArrayRef(kOptionalPasses), ", ") + ")");
      for (llvm::StringRef pass : passes)
        result.disabledPasses.push_back(pass.trim().str());
    } else if (name == "ptxas") {
      llvm::SmallVector<llvm::StringRef> options;
      value.split(options, ' ', -1, /*KeepEmpty=*/false);
      if (options.empty())
        return fail("the options to add ('-Ofc=min')");
      for (llvm::StringRef option : options)
        result.ptxasOptions.push_back(option.str());
    } else if (name == "llvm-opt-level") {
      unsigned level;
      if (value.getAsInteger(10, level) || level > 3)
        return fail("0 to 3");
      result.llvmOptLevel = level;
    } else if (name == "lean-addresses") {
      error = flag(result.leanAddresses);
    } else if (name == "keep-invariants") {
      error = flag(result.keepInvariants);
    } else if (name == "fma-k-unroll") {
      error = count(result.fmaKUnroll);
    } else if (name == "sync-dots") {
      error = flag(result.syncDots);
    } else if (name == "async-staging") {
      error = flag(result.asyncStaging);
    } else if (name == "epilogue-order") {
      error = flag(result.epilogueOrder);
    } else if (name == "spill-relief") {
      error = only("0", result.keepSpills);
    } else if (name == "fold-ragged") {
      error = flag(result.foldRagged);
    } else if (name == "drain-ring") {
      error = flag(result.drainRing);
    } else if (name == "tma-invariants") {
      error = flag(result.tmaInvariants);
    } else if (name == "wgmma-fragment-steps") {
      error = count(result.wgmmaFragmentSteps);
    } else if (name == "verify-each") {
      error = only("1", result.verifyEach);
    } else if (name == "assembler") {
      error = only("ptxas", result.ptxasProcess);
    } else if (name == "allocator-defaults") {
      error = only("1", result.allocatorDefaults);
    } else {
      std::string names;
      for (const auto &[known, help] : kSettings)
        names += (names.empty() ? "" : ", ") + known.str();
      return llvm::createStringError(
          llvm::formatv("--experiment {0}: no experiment '{1}' (there are: "
                        "{2})",
                        setting, name, names)
              .str());
    }
    if (error)
      return std::move(error);
  }
  return result;
}

std::string Experiments::versionLabel() const {
  std::string label;
  auto add = [&](llvm::StringRef name, const auto &value) {
    label += llvm::formatv("+{0}{1}", name, value).str();
  };
  if (!disabledPasses.empty())
    add("without:", llvm::join(disabledPasses, ","));
  if (!ptxasOptions.empty())
    add("ptxas:", llvm::join(ptxasOptions, " "));
  if (llvmOptLevel)
    add("llvm-O", *llvmOptLevel);
  if (leanAddresses)
    add("lean-addresses:", int(*leanAddresses));
  if (keepInvariants)
    add("keep-invariants:", int(*keepInvariants));
  if (fmaKUnroll)
    add("fma-k-unroll:", *fmaKUnroll);
  if (syncDots)
    add("sync-dots:", int(*syncDots));
  if (asyncStaging)
    add("async-staging:", int(*asyncStaging));
  if (foldRagged)
    add("fold-ragged:", int(*foldRagged));
  if (drainRing)
    add("drain-ring:", int(*drainRing));
  if (tmaInvariants)
    add("tma-invariants:", int(*tmaInvariants));
  if (epilogueOrder)
    add("epilogue-order:", int(*epilogueOrder));
  if (wgmmaFragmentSteps)
    add("wgmma-fragment-steps:", *wgmmaFragmentSteps);
  if (keepSpills)
    add("spill-relief:", 0);
  return label;
}

static Experiments &storage() {
  static Experiments experiments;
  return experiments;
}
static std::atomic<bool> &read() {
  static std::atomic<bool> flag{false};
  return flag;
}

const Experiments &phobos::getExperiments() {
  read() = true;
  return storage();
}

void phobos::setExperiments(Experiments experiments) {
  if (read())
    llvm::report_fatal_error("phobos: experiments set after they were read");
  storage() = std::move(experiments);
}

llvm::Error phobos::applyExperiments(llvm::ArrayRef<std::string> settings) {
  if (settings.empty())
    return llvm::Error::success();
  llvm::Expected<Experiments> parsed = Experiments::parse(settings);
  if (!parsed)
    return parsed.takeError();
  setExperiments(std::move(*parsed));
  return llvm::Error::success();
}
