//===- InitAllDialects.h - Dialects the Phobos tools load -------*- C++ -*-===//
//
// One place that lists the dialects phobos-opt and phobos-translate know:
// Phobos's own and the upstream ones its pipeline produces or consumes.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_INITALLDIALECTS_H
#define PHOBOS_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace phobos {

/// Adds the Phobos dialects and the upstream dialects of the pipeline.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace phobos

#endif // PHOBOS_INITALLDIALECTS_H
