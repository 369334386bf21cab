//===- Environment.cpp - Every environment variable Phobos reads ----------===//

#include "Phobos/Support/Environment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Process.h"

using namespace phobos;

static const EnvironmentVariable kVariables[] = {
    {"PHOBOS_CACHE_DIR", "the kernel cache's root (else $XDG_CACHE_HOME/phobos, else ~/.cache/phobos)"},
    {"XDG_CACHE_HOME", "the kernel cache is $XDG_CACHE_HOME/phobos when PHOBOS_CACHE_DIR is unset"},
    {"HOME", "the kernel cache is ~/.cache/phobos when neither of the above is set"},
    {"PHOBOS_NVJITLINK", "the libnvJitLink the compile pool tries first"},
    {"PHOBOS_CLUSTER_CREDENTIALS", "phobos-sched's and phobos-pod's credentials directory when --credentials is not given"},
    {"SLURM_JOB_ID", "phobos-sched --slurm: set in an allocation, where it starts its pods with srun"},
    {"SLURM_NTASKS", "phobos-sched --slurm: how many pods it starts, one Slurm task each"},
    {"SLURM_JOB_NODELIST", "phobos-pod --slurm: its first host is the scheduler's when --scheduler is not given"},
    {"SLURM_PROCID", "phobos-pod --slurm: the pod's rank when --rank is not given"},
    {"SLURM_LOCALID", "phobos-pod --slurm: the GPU of the pod when --device is not given and the task sees several"},
    {"CUDA_VISIBLE_DEVICES", "phobos-pod --slurm: a task that sees one GPU (Slurm's binding) runs on it"},
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
