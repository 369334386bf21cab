//===- Environment.cpp - Every environment variable Phobos reads ----------===//

#include "Phobos/Support/Environment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Process.h"

using namespace phobos;

static const EnvironmentVariable kVariables[] = {
    // Where things are.
    {"PHOBOS_CACHE_DIR", "the kernel cache's root (else $XDG_CACHE_HOME/phobos, else ~/.cache/phobos)", ""},
    {"XDG_CACHE_HOME", "the kernel cache is $XDG_CACHE_HOME/phobos when PHOBOS_CACHE_DIR is unset", ""},
    {"HOME", "the kernel cache is ~/.cache/phobos when neither of the above is set", ""},
    {"PHOBOS_NVJITLINK", "the libnvJitLink the compile pool tries first", ""},
    {"PHOBOS_CLUSTER_CREDENTIALS", "phobos-sched's and phobos-pod's credentials directory when --credentials is not given", ""},
    // Switches of the tools that leave compiled code as it is.
    {"PHOBOS_NO_NVJITLINK", "set: the compile pool assembles with the ptxas process, not nvJitLink in process", ""},
    {"PHOBOS_ALLOCATOR_DEFAULTS", "1: the compile pool keeps glibc's allocator settings (A/B of compile time)", ""},
    {"PHOBOS_VERIFY_EACH", "1: verify the IR after every pass of the GPU pipeline, not once at its end", ""},
    // A/B knobs that change compiled code: in the compiler's version.
    {"PHOBOS_DISABLE_PASSES", "comma-separated optional passes the GPU pipeline leaves out", "+without:"},
    {"PHOBOS_PTXAS_OPTIONS", "options added to every ptxas and nvJitLink assembly", "+ptxas:"},
    {"PHOBOS_LLVM_OPT_LEVEL", "LLVM's IR optimisation level, 0 to 3 (default 1)", "+llvm-O"},
    {"PHOBOS_LEAN_ADDRESSES", "0 or 1: fixes the lean-addresses spill relief", "+lean-addresses:"},
    {"PHOBOS_KEEP_INVARIANTS", "0 or 1: fixes the keep-invariants spill relief", "+keep-invariants:"},
    {"PHOBOS_FMA_K_UNROLL", "steps per iteration of the FMA dots' K loops (0: unrolled whole), unless the pipeline option is given", "+fma-k-unroll:"},
    {"PHOBOS_SYNC_DOTS", "0 or 1: no dot kept in flight, unless the pipeline option is given", "+sync-dots:"},
    {"PHOBOS_ASYNC_STAGING", "0 or 1: loops stage dot operands by asynchronous copies, unless the pipeline option is given", "+async-staging:"},
    {"PHOBOS_WGMMA_FRAGMENT_STEPS", "k-steps per group of a swap_ab wgmma dot, unless the pipeline option is given", "+wgmma-fragment-steps:"},
};

llvm::ArrayRef<EnvironmentVariable> phobos::environmentVariables() {
  return kVariables;
}

std::optional<std::string> phobos::getEnvironment(llvm::StringRef name) {
  if (!llvm::any_of(kVariables, [&](const EnvironmentVariable &variable) {
        return variable.name == name;
      }))
    llvm::report_fatal_error("phobos: environment variable '" + name +
                             "' is not in Support/Environment.cpp's registry");
  std::optional<std::string> value = llvm::sys::Process::GetEnv(name);
  if (!value || value->empty())
    return std::nullopt;
  return value;
}

std::string phobos::codeChangingEnvironment() {
  std::string text;
  for (const EnvironmentVariable &variable : kVariables)
    if (!variable.versionLabel.empty())
      if (std::optional<std::string> value = getEnvironment(variable.name))
        text += (variable.versionLabel + *value).str();
  return text;
}
