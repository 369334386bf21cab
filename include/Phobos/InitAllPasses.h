//===- InitAllPasses.h - Passes the Phobos tools register -------*- C++ -*-===//
//
// Registers Phobos's passes and pipelines and the upstream passes that
// phobos-opt offers for testing them.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_INITALLPASSES_H
#define PHOBOS_INITALLPASSES_H

namespace phobos {

/// Registers every Phobos pass and pipeline, and the upstream passes the
/// pipeline is built from.
void registerAllPasses();

} // namespace phobos

#endif // PHOBOS_INITALLPASSES_H
