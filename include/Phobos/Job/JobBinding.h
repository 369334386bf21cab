//===- JobBinding.h - A job bound to its cluster program --------*- C++ -*-===//
//
// A job file (JobFile.h) bound to the cluster program phobos-cluster-split
// made of its kernel: each tensor checked against the kernel's parameter
// and given its mode, shape and URI, each scalar its value, each dim its
// extent. What phobos-sched plans and runs, and what phobos-viz plans for
// its cluster panel.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_JOB_JOBBINDING_H
#define PHOBOS_JOB_JOBBINDING_H

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"
#include "Phobos/Job/JobFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

namespace phobos::job {

/// Reports a mistake at its place in the job file.
using BindingErrorReporter =
    llvm::function_ref<void(llvm::SMLoc, const llvm::Twine &)>;

/// Binds `job` to `program`: every tensor parameter must be given with the
/// kernel's element type and rank, its fixed extents and a mode that fits
/// what the kernel does, and agree with the other tensors on each dim;
/// every scalar parameter must be given with its type; the job names no
/// tensor, scalar or dim the kernel lacks. Sets the tensors' modes, shapes
/// and URIs and the scalars' values on `program`, and `dims` to every
/// dim's extent. Reports the first mistake through `report` and returns
/// false.
bool bindJob(const Job &job, phobos::cluster::ProgramOp program,
             llvm::StringMap<int64_t> &dims, BindingErrorReporter report);

} // namespace phobos::job

#endif // PHOBOS_JOB_JOBBINDING_H
