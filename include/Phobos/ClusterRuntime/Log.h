//===- Log.h - The cluster runtime's log lines ------------------*- C++ -*-===//
//
// One line per event, prefixed with the time (UTC, ISO 8601 with
// milliseconds; or, with LogClock::Elapsed, the seconds since the process
// started) and who speaks:
//
//   [2026-12-06T02:50:01.173Z] sched: node 0 = 127.0.0.1:7071 joined (...)
//   [2026-12-06T02:50:01.402Z] pod 127.0.0.1:7071 (node 0): job ... done
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
#include <functional>
#include <string>

namespace phobos::cluster::runtime {

/// Seconds since the process started (since the first call).
double elapsedSeconds();

/// How log lines give the time.
enum class LogClock {
  /// `[2026-12-06T02:50:01.173Z]`: wall-clock time in UTC (the default).
  Utc,
  /// `[   0.173s]`: seconds since the process started.
  Elapsed,
};
void setLogClock(LogClock clock);

/// The time as a log line starts with it, brackets included.
std::string logTimestamp();

/// Writes `[time] who: message` and a newline to `stream` (stderr by
/// default), flushed.
void logLine(absl::string_view who, absl::string_view message,
             std::FILE *stream = stderr);

/// `1.5 MiB`, `512 bytes`.
std::string formatBytes(int64_t bytes);

/// What a TLS failure in a gRPC status or log message means for a cluster
/// member (a certificate another CA signed, plaintext against TLS, ...),
/// or "" when the text names none. `peer` and `self` name the two sides
/// ("the pod at 127.0.0.1:7071", "this scheduler").
std::string explainTlsFailure(absl::string_view grpcText,
                              absl::string_view peer = "the other side",
                              absl::string_view self = "this side");

/// Routes gRPC's own error lines (`E1205 ... ssl_transport_security.cc:1501]
/// Handshake failed with fatal error SSL_ERROR_SSL: ...`) through logLine as
/// `who`, a TLS failure with its cause, each distinct line at most once a
/// minute: the raw lines named neither the peer's role nor the cause.
void routeGrpcLogs(absl::string_view who);

/// From now on a TLS failure among gRPC's lines goes to `hook` with its
/// meaning, which returns the line to log instead (naming the peer where it
/// knows more than gRPC's line, which names none), or "" to log nothing;
/// nullptr: the plain line again. The hook runs on gRPC's threads; it must
/// not be set while a lock the hook takes is held.
void setTlsFailureHook(std::function<std::string(const std::string &meaning)> hook);

} // namespace phobos::cluster::runtime

#endif // PHOBOS_CLUSTERRUNTIME_LOG_H
