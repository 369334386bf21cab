//===- SlurmLaunch.cpp - phobos-sched starting its pods with srun ---------===//

#include "SlurmLaunch.h"

#include "Phobos/ClusterRuntime/Log.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

using namespace phobos::cluster::runtime;

std::vector<std::string>
phobos::cluster::runtime::splitArguments(const std::string &text) {
  return absl::StrSplit(text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
}

std::vector<std::string>
SlurmLauncher::commandLine(int rank, const std::string &scheduler) const {
  // One task, one node, only the CPUs (and GPUs) it asks for: the steps of
  // all pods fit in the allocation side by side.
  std::vector<std::string> argv = {"srun", "--ntasks=1", "--nodes=1",
                                   "--exact", "--kill-on-bad-exit=0",
                                   absl::StrCat("--job-name=phobos-pod-", rank)};
  argv.insert(argv.end(), options.srunArgs.begin(), options.srunArgs.end());
  argv.insert(argv.end(),
              {options.podPath, "--slurm", "--one-job",
               absl::StrCat("--rank=", rank),
               absl::StrCat("--scheduler=", scheduler),
               absl::StrCat("--listen=", options.podListenHost, ":0")});
  argv.insert(argv.end(), options.podArgs.begin(), options.podArgs.end());
  return argv;
}

absl::Status SlurmLauncher::launch(const std::string &scheduler) {
  for (int rank = 0; rank < options.pods; ++rank) {
    std::vector<std::string> argv = commandLine(rank, scheduler);
    std::vector<char *> raw;
    for (std::string &argument : argv)
      raw.push_back(argument.data());
    raw.push_back(nullptr);
    pid_t pid = 0;
    int error = ::posix_spawnp(&pid, raw[0], nullptr, nullptr, raw.data(), environ);
    if (error != 0) {
      reap();
      return absl::UnavailableError(absl::StrCat(
          "--slurm: cannot start srun for the pod of rank ", rank, ": ",
          std::strerror(error), " (is Slurm's srun on the PATH?)"));
    }
    steps.push_back(pid);
  }
  logLine("sched", absl::StrCat("started ", options.pods, " pod",
                                options.pods == 1 ? "" : "s",
                                " as Slurm job steps (phobos-pod-0 to "
                                "phobos-pod-",
                                options.pods - 1, ")"),
          stdout);
  return absl::OkStatus();
}

void SlurmLauncher::reap() {
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  std::vector<std::string> endings;
  int signalled = 0;
  for (size_t rank = 0; rank < steps.size(); ++rank) {
    pid_t pid = steps[rank];
    int status = 0;
    while (true) {
      pid_t done = ::waitpid(pid, &status, WNOHANG);
      if (done == pid || (done < 0 && errno != EINTR))
        break;
      if (absl::Now() > deadline) {
        // srun passes the signal on to its task.
        ::kill(pid, signalled < 2 ? SIGTERM : SIGKILL);
        ++signalled;
        deadline = absl::Now() + absl::Seconds(2);
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
      endings.push_back(absl::StrCat("rank ", rank, ": srun exited with status ",
                                     WEXITSTATUS(status)));
    else if (WIFSIGNALED(status))
      endings.push_back(absl::StrCat("rank ", rank, ": srun ended by signal ",
                                     WTERMSIG(status)));
  }
  steps.clear();
  if (!endings.empty())
    logLine("sched",
            absl::StrCat("pod steps that did not end well: ",
                         absl::StrJoin(endings, "; ")),
            stdout);
}
