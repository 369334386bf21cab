//===- Chips.h - The GPUs Phobos targets, in one place ----------*- C++ -*-===//
//
// Every fact about a target chip that more than one layer needs: which
// `sm_XY` names the compiler accepts, what a CTA may use on each, and which
// name a device of a given compute capability compiles for (sm_90 cards
// compile for sm_90a, whose wgmma and TMA instructions the fast kernels use).
// The pipeline, the tuner, the CUDA driver wrapper, the cluster pods and the
// Python package (through the C API) all ask here.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_SUPPORT_CHIPS_H
#define PHOBOS_SUPPORT_CHIPS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>

namespace phobos {

/// One chip the compiler targets.
struct ChipInfo {
  /// The CUDA target name: "sm_90a".
  llvm::StringRef name;
  /// Its compute capability.
  int major, minor;
  /// Dynamic shared memory a CTA may opt in to, in bytes (CUDA programming
  /// guide, table of compute capabilities).
  int64_t sharedMemoryBytes;
  /// Whether the name carries the architecture-specific features ("a").
  bool archSpecific;
};

/// Every chip Phobos targets, by compute capability.
llvm::ArrayRef<ChipInfo> supportedChipInfos();

/// The chip called `name`, or null when Phobos does not target it.
const ChipInfo *findChip(llvm::StringRef name);

/// Whether `name` ("sm_90") is a CUDA target name this compiler accepts.
inline bool isValidChip(llvm::StringRef name) { return findChip(name); }

/// "sm_80, sm_86, sm_87, sm_89, sm_90 and sm_90a", for messages.
llvm::StringRef supportedChips();

/// The chip a device of compute capability `major`.`minor` compiles for:
/// "sm_<major><minor>", with the architecture-specific features where the
/// chip has them (9.0: sm_90a). Every launcher (phobos-run, the tuner, the
/// pods, Python) picks its target here.
std::string chipForCapability(int major, int minor);
inline std::string chipForCapability(std::array<int, 2> capability) {
  return chipForCapability(capability[0], capability[1]);
}

} // namespace phobos

#endif // PHOBOS_SUPPORT_CHIPS_H
