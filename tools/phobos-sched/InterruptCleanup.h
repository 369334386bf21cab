//===- InterruptCleanup.h - A run interrupted by a signal -------*- C++ -*-===//
//
// Private to phobos-sched: what becomes of a job on SIGINT, SIGTERM and
// SIGHUP (Ctrl-C, Slurm's time limit, a closed terminal) while its partial
// outputs exist. Once a super-tile is journaled, the partial outputs and
// the journal are kept for the same command to resume from, and the
// handler says how many super-tiles they hold: a job that ran into its time
// limit goes on where it stopped. Before that, or when the journal could
// not be written, there is nothing to resume: the handler removes them.
// Either way it says what became of the job, and the signal then takes its
// default course (the process ends by it: a non-zero status). The handler
// is async-signal-safe: it reads atomics and prebuilt text, and calls only
// unlink, write and raise.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_SCHED_INTERRUPTCLEANUP_H
#define PHOBOS_TOOLS_PHOBOS_SCHED_INTERRUPTCLEANUP_H

#include <cstdint>
#include <string>
#include <vector>

namespace phobos::cluster::runtime::sched {

/// From now on SIGINT, SIGTERM and SIGHUP say what became of the job and,
/// unless `resumable` and a super-tile is journaled, remove `partials`
/// (none: before they exist, or after a failed job removed them).
/// `totalTiles` and `journal` go into the line that says how to resume.
void armInterrupt(uint64_t jobId, const std::vector<std::string> &partials,
                  bool wroteOutputs = true, bool resumable = false,
                  int64_t totalTiles = 0, const std::string &journal = "");

/// The signals' default actions again (the outputs are in place).
void disarmInterrupt();

/// What the handler knows of the journal: it holds `storedTiles` output
/// super-tiles (an earlier run's verified ones included) and every store
/// so far reached it.
void resetInterruptJournal(int64_t storedTiles);
/// One more super-tile reached the journal.
void noteTileJournaled();
/// A store did not reach the journal: there is nothing to resume from, and
/// the handler removes the partial outputs.
void noteJournalBroken();

} // namespace phobos::cluster::runtime::sched

#endif // PHOBOS_TOOLS_PHOBOS_SCHED_INTERRUPTCLEANUP_H
