//===- SlurmLaunch.h - phobos-sched starting its pods with srun -*- C++ -*-===//
//
// phobos-sched --slurm runs inside an allocation (an sbatch script or
// salloc) and starts one pod per task of it, each as a Slurm job step of
// its own (`srun --ntasks=1 --exact ... phobos-pod --slurm --rank I
// --one-job --scheduler HOST:PORT`): a step per pod, so that Slurm (and a
// user's `scancel JOB.STEP`) can stop one pod without the others, and the
// scheduler re-plans around it as around any lost node. The pods leave
// when the job ends (--one-job); the scheduler waits for their steps.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_SCHED_SLURMLAUNCH_H
#define PHOBOS_TOOLS_PHOBOS_SCHED_SLURMLAUNCH_H

#include "absl/status/status.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace phobos::cluster::runtime {

struct SlurmLaunchOptions {
  /// The pods, ranks 0 to pods - 1.
  int pods = 0;
  /// The phobos-pod executable (beside phobos-sched).
  std::string podPath;
  /// The host the pods listen on (port 0: any free port): a loopback
  /// address when the scheduler listens on one, else every interface.
  std::string podListenHost;
  /// Given to every pod (credentials, --interpret, ...) and to every srun
  /// (--gpus-per-task=1, ...).
  std::vector<std::string> podArgs, srunArgs;
};

/// The pods' steps of one scheduler.
class SlurmLauncher {
public:
  explicit SlurmLauncher(SlurmLaunchOptions options)
      : options(std::move(options)) {}

  /// The srun command line of rank `rank`'s pod.
  std::vector<std::string> commandLine(int rank,
                                       const std::string &scheduler) const;
  /// Starts every pod's step; an srun that cannot be started is an error.
  absl::Status launch(const std::string &scheduler);
  /// Waits for the steps (the pods leave when the job ends), at most a few
  /// seconds, then stops those left; says how each step that did not
  /// succeed ended.
  void reap();

private:
  SlurmLaunchOptions options;
  std::vector<pid_t> steps;
};

/// Splits `--pod-args`/`--srun-args` on white space (no shell quoting).
std::vector<std::string> splitArguments(const std::string &text);

} // namespace phobos::cluster::runtime

#endif // PHOBOS_TOOLS_PHOBOS_SCHED_SLURMLAUNCH_H
