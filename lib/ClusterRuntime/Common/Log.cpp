//===- Log.cpp - The cluster runtime's log lines --------------------------===//

#include "Phobos/ClusterRuntime/Log.h"

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include <grpc/support/log.h>

#include <atomic>
#include <functional>
#include <map>

using namespace phobos::cluster::runtime;

namespace {
absl::Time startTime() {
  static const absl::Time start = absl::Now();
  return start;
}
// Read once at start-up, so that "0.000s" is the process's start.
[[maybe_unused]] const absl::Time processStart = startTime();
absl::Mutex &logMutex() {
  static absl::Mutex *mutex = new absl::Mutex;
  return *mutex;
}
std::atomic<LogClock> logClock{LogClock::Utc};
} // namespace

double phobos::cluster::runtime::elapsedSeconds() {
  return absl::ToDoubleSeconds(absl::Now() - startTime());
}

void phobos::cluster::runtime::setLogClock(LogClock clock) {
  logClock.store(clock);
}

std::string phobos::cluster::runtime::logTimestamp() {
  if (logClock.load() == LogClock::Elapsed)
    return absl::StrFormat("[%8.3fs]", elapsedSeconds());
  // ISO 8601 in UTC with milliseconds, as Slurm's and most daemons' logs:
  // lines of several machines sort and merge by their text.
  return absl::StrCat(
      "[", absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone()),
      "]");
}

void phobos::cluster::runtime::logLine(absl::string_view who,
                                       absl::string_view message,
                                       std::FILE *stream) {
  std::string line =
      absl::StrFormat("%s %s: %s\n", logTimestamp(), who, message);
  absl::MutexLock lock(&logMutex());
  std::fwrite(line.data(), 1, line.size(), stream);
  std::fflush(stream);
}

std::string phobos::cluster::runtime::formatBytes(int64_t bytes) {
  static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0)
    return absl::StrCat(bytes, " bytes");
  return absl::StrFormat("%.1f %s", value, units[unit]);
}

std::string phobos::cluster::runtime::explainTlsFailure(
    absl::string_view grpcText, absl::string_view peer, absl::string_view self) {
  struct Cause {
    absl::string_view marker, meaning;
  };
  static const Cause causes[] = {
      // OpenSSL says the same of a certificate out of its validity; the
      // tools refuse their own expired ones when they start.
      {"certificate verify failed",
       "the other side's certificate is not signed by this side's cluster CA "
       "(the two machines have different credentials), or has expired"},
      {"CERTIFICATE_VERIFY_FAILED",
       "the other side's certificate is not signed by this side's cluster CA "
       "(the two machines have different credentials), or has expired"},
      {"wrong version number",
       "one side speaks plaintext (--insecure) and the other TLS"},
      {"WRONG_VERSION_NUMBER",
       "one side speaks plaintext (--insecure) and the other TLS"},
      {"peer did not return a certificate",
       "the client presented no certificate"},
      {"certificate required", "the client presented no certificate"},
      {"certificate expired", "a certificate has expired"},
      {"Peer name", "the server's certificate does not name phobos-cluster"},
      {"tlsv1 alert unknown ca",
       "the other side does not trust this side's cluster CA (the two "
       "machines have different credentials)"},
  };
  for (const Cause &cause : causes)
    if (absl::StrContains(grpcText, cause.marker))
      return absl::StrReplaceAll(cause.meaning,
                                 {{"the other side", peer}, {"this side", self}});
  if (absl::StrContains(grpcText, "andshake"))
    return "the TLS handshake failed";
  return "";
}

namespace {
/// Who gRPC's lines are said by; it changes once a pod knows its address,
/// while gRPC's threads may log.
absl::Mutex grpcLogWhoMutex(absl::kConstInit);
std::string *grpcLogWho = nullptr;

/// setTlsFailureHook's.
absl::Mutex tlsHookMutex(absl::kConstInit);
std::function<std::string(const std::string &)> *tlsHook = nullptr;

std::string grpcWho() {
  absl::MutexLock lock(&grpcLogWhoMutex);
  return grpcLogWho ? *grpcLogWho : "grpc";
}

void onGrpcLog(gpr_log_func_args *args) {
  if (args->severity != GPR_LOG_SEVERITY_ERROR)
    return;
  absl::string_view message = args->message;
  std::string meaning = explainTlsFailure(message);
  std::string line =
      meaning.empty()
          ? absl::StrCat("gRPC: ", message)
          : absl::StrCat("a TLS handshake failed: ", meaning, " (", message,
                         ")");
  if (!meaning.empty()) {
    absl::MutexLock lock(&tlsHookMutex);
    if (tlsHook) {
      line = (*tlsHook)(meaning);
      if (line.empty())
        return;
    }
  }
  // A peer that retries would repeat the line every fraction of a second.
  static absl::Mutex mutex;
  static std::map<std::string, absl::Time> *last =
      new std::map<std::string, absl::Time>;
  {
    absl::MutexLock lock(&mutex);
    absl::Time now = absl::Now();
    auto [it, fresh] = last->try_emplace(line, now);
    if (!fresh && now - it->second < absl::Minutes(1))
      return;
    it->second = now;
  }
  logLine(grpcWho(), line);
}
} // namespace

void phobos::cluster::runtime::routeGrpcLogs(absl::string_view who) {
  {
    absl::MutexLock lock(&grpcLogWhoMutex);
    if (!grpcLogWho)
      grpcLogWho = new std::string;
    *grpcLogWho = std::string(who);
  }
  gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
  gpr_set_log_function(onGrpcLog);
}

void phobos::cluster::runtime::setTlsFailureHook(
    std::function<std::string(const std::string &meaning)> hook) {
  absl::MutexLock lock(&tlsHookMutex);
  delete tlsHook;
  tlsHook = hook ? new std::function<std::string(const std::string &)>(
                       std::move(hook))
                 : nullptr;
}
