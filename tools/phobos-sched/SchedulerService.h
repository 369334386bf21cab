//===- SchedulerService.h - The service the pods attach to ------*- C++ -*-===//
//
// Private to phobos-sched. The Scheduler service of one run (the protocol's
// `service Scheduler`): each pod attaches with a Join and is welcomed or
// refused, then streams its heartbeats and failures in, while a writer
// thread of its own sends what the run queues in its Outbox; clients ask
// for the job's state (--status) or cancel it (--cancel). It writes the
// run's Cluster under its mutex; the main thread alone decides what
// follows.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_SCHED_SCHEDULERSERVICE_H
#define PHOBOS_TOOLS_PHOBOS_SCHED_SCHEDULERSERVICE_H

#include <memory>

namespace grpc {
class Service;
} // namespace grpc

namespace phobos::cluster::runtime {
struct Credentials;
} // namespace phobos::cluster::runtime

namespace phobos::cluster::runtime::sched {

struct Cluster;

/// The service for a run's gRPC server; it refers to `cluster` and
/// `credentials`, which outlive the server.
std::unique_ptr<grpc::Service>
makeSchedulerService(Cluster &cluster, const Credentials &credentials);

} // namespace phobos::cluster::runtime::sched

#endif // PHOBOS_TOOLS_PHOBOS_SCHED_SCHEDULERSERVICE_H
