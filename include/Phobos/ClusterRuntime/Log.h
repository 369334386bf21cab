//===- Log.h - The cluster runtime's log lines ------------------*- C++ -*-===//
//
// One line per event, prefixed with the seconds since the process started
// and who speaks:
//
//   [   0.173s] sched: node 0 = 127.0.0.1:7071 joined (interpreter, 1 thread)
//
// Lines from several threads never interleave. (Debian 12's Abseil,
// 20220623, predates absl/log; this is the little the runtime needs.)
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_CLUSTERRUNTIME_LOG_H
#define PHOBOS_CLUSTERRUNTIME_LOG_H

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace phobos::cluster::runtime {

/// Seconds since the process started (since the first call).
double elapsedSeconds();

/// Writes `[  t.ttts] who: message` and a newline to `stream` (stderr by
/// default), flushed.
void logLine(absl::string_view who, absl::string_view message,
             std::FILE *stream = stderr);

/// `1.5 MiB`, `512 bytes`.
std::string formatBytes(int64_t bytes);

/// What a TLS failure in a gRPC status or log message means for a cluster
/// member (a certificate another CA signed, plaintext against TLS, ...),
/// or "" when the text names none.
std::string explainTlsFailure(absl::string_view grpcText);

/// Routes gRPC's own error lines (`E1205 ... ssl_transport_security.cc:1501]
/// Handshake failed with fatal error SSL_ERROR_SSL: ...`) through logLine as
/// `who`, a TLS failure with its cause, each distinct line at most once a
/// minute: the raw lines named neither the peer's role nor the cause.
void routeGrpcLogs(absl::string_view who);

} // namespace phobos::cluster::runtime

#endif // PHOBOS_CLUSTERRUNTIME_LOG_H
