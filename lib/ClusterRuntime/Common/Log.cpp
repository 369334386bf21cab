//===- Log.cpp - The cluster runtime's log lines --------------------------===//

#include "Phobos/ClusterRuntime/Log.h"

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include <grpc/support/log.h>

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
} // namespace

double phobos::cluster::runtime::elapsedSeconds() {
  return absl::ToDoubleSeconds(absl::Now() - startTime());
}

void phobos::cluster::runtime::logLine(absl::string_view who,
                                       absl::string_view message,
                                       std::FILE *stream) {
  std::string line =
      absl::StrFormat("[%8.3fs] %s: %s\n", elapsedSeconds(), who, message);
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

std::string
phobos::cluster::runtime::explainTlsFailure(absl::string_view grpcText) {
  struct Cause {
    absl::string_view marker, meaning;
  };
  static const Cause causes[] = {
      {"certificate verify failed",
       "the other side's certificate is not signed by this side's cluster CA "
       "(the two machines have different credentials)"},
      {"CERTIFICATE_VERIFY_FAILED",
       "the other side's certificate is not signed by this side's cluster CA "
       "(the two machines have different credentials)"},
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
      return std::string(cause.meaning);
  if (absl::StrContains(grpcText, "andshake"))
    return "the TLS handshake failed";
  return "";
}

namespace {
std::string *grpcLogWho = nullptr;

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
  logLine(grpcLogWho ? *grpcLogWho : "grpc", line);
}
} // namespace

void phobos::cluster::runtime::routeGrpcLogs(absl::string_view who) {
  static std::string name;
  name = std::string(who);
  grpcLogWho = &name;
  gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
  gpr_set_log_function(onGrpcLog);
}
