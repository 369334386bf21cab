//===- Log.cpp - The cluster runtime's log lines --------------------------===//

#include "Phobos/ClusterRuntime/Log.h"

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

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
