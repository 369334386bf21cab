//===- InterruptCleanup.cpp - A run interrupted by a signal ---------------===//
//
// See InterruptCleanup.h.
//
//===----------------------------------------------------------------------===//

#include "InterruptCleanup.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <unistd.h>

using namespace phobos::cluster::runtime;

namespace {

/// For the interrupt handler (onInterrupt, below): the output super-tiles in
/// the journal (an earlier run's verified ones included), and whether every
/// store reached it.
std::atomic<int64_t> interruptStoredTiles{0};
std::atomic<bool> interruptJournalWhole{true};

/// What the handler needs, prepared by armInterrupt.
struct InterruptCleanup {
  std::vector<std::string> paths;
  std::vector<const char *> raw;
  /// What is said when the files are removed (or none existed), by signal.
  std::string removed[3];
  /// When they are kept: `kept[i]`, the number of stored super-tiles,
  /// `keptRest`.
  std::string kept[3], keptRest;
  bool resumable = false;
};
InterruptCleanup *interruptCleanup = nullptr;
constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};

void writeAll(const std::string &text) {
  ssize_t ignored = ::write(2, text.data(), text.size());
  (void)ignored;
}

extern "C" void onInterrupt(int signal) {
  if (InterruptCleanup *cleanup = interruptCleanup) {
    int which = 0;
    while (which < 2 && kInterruptSignals[which] != signal)
      ++which;
    int64_t stored = interruptStoredTiles.load();
    if (cleanup->resumable && stored > 0 && interruptJournalWhole.load()) {
      char digits[24];
      int length = 0;
      for (int64_t value = stored; value > 0 && length < 20; value /= 10)
        digits[length++] = static_cast<char>('0' + value % 10);
      std::string number(digits, digits + length);
      std::reverse(number.begin(), number.end());
      writeAll(cleanup->kept[which]);
      writeAll(number);
      writeAll(cleanup->keptRest);
    } else {
      for (const char *path : cleanup->raw)
        ::unlink(path);
      writeAll(cleanup->removed[which]);
    }
  }
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

} // namespace

void sched::armInterrupt(uint64_t jobId,
                         const std::vector<std::string> &partials,
                         bool wroteOutputs, bool resumable, int64_t totalTiles,
                         const std::string &journal) {
  static InterruptCleanup cleanup;
  interruptCleanup = nullptr; // not read while it changes
  cleanup.paths = partials;
  cleanup.raw.clear();
  for (const std::string &path : cleanup.paths)
    cleanup.raw.push_back(path.c_str());
  cleanup.resumable = resumable;
  const char *names[] = {"SIGINT", "SIGTERM", "SIGHUP"};
  for (int i = 0; i < 3; ++i) {
    std::string head =
        absl::StrFormat("phobos-sched: job %016x interrupted by %s: stopped; ",
                        jobId, names[i]);
    cleanup.removed[i] = absl::StrCat(
        head,
        partials.empty() || !wroteOutputs
            ? "no output was written"
        : resumable ? "no output super-tile was stored yet, so its partial "
                      "outputs were removed and the outputs are as they were"
                    : "its partial outputs were removed and the outputs are "
                      "as they were",
        "\n");
    cleanup.kept[i] = head;
  }
  cleanup.keptRest = absl::StrFormat(
      "%s output super-tiles are stored in its partial outputs, kept with "
      "the journal %s: run the same command again to resume (--no-resume "
      "starts afresh and removes them); the outputs are as they were\n",
      totalTiles > 0 ? absl::StrCat(" of ", totalTiles) : "", journal);
  interruptCleanup = &cleanup;
  for (int signal : kInterruptSignals)
    ::signal(signal, onInterrupt);
}

void sched::disarmInterrupt() {
  for (int signal : kInterruptSignals)
    ::signal(signal, SIG_DFL);
  interruptCleanup = nullptr;
}

void sched::resetInterruptJournal(int64_t storedTiles) {
  interruptStoredTiles.store(storedTiles);
  interruptJournalWhole.store(true);
}

void sched::noteTileJournaled() { interruptStoredTiles.fetch_add(1); }

void sched::noteJournalBroken() { interruptJournalWhole.store(false); }
