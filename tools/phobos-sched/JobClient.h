//===- JobClient.h - phobos-sched --status and --cancel ---------*- C++ -*-===//
//
// Asking a running scheduler about its job, or to stop it (docs/cluster.md
// §17). Both print what they learnt and return the process's exit status.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_SCHED_JOBCLIENT_H
#define PHOBOS_TOOLS_PHOBOS_SCHED_JOBCLIENT_H

#include "Phobos/ClusterRuntime/Credentials.h"

#include <string>

namespace phobos::cluster::runtime {

/// --status ADDR: the job of the scheduler at `address` (nodes, units
/// stored and left, bytes moved, ETA), or the pod's status at a pod's.
int queryStatus(const std::string &address, const Credentials &credentials);

/// --cancel ADDR: stops the job of the scheduler at `address`.
int cancelJob(const std::string &address, const Credentials &credentials);

} // namespace phobos::cluster::runtime

#endif // PHOBOS_TOOLS_PHOBOS_SCHED_JOBCLIENT_H
