//===- Chips.cpp - The GPUs Phobos targets --------------------------------===//

#include "Phobos/Support/Chips.h"

#include "llvm/ADT/STLExtras.h"

using namespace phobos;

// mma.sync m16n8k16 needs sm_80; PTX 8.0 stops at sm_90a.
static const ChipInfo kChips[] = {
    {"sm_80", 8, 0, 166912, false}, {"sm_86", 8, 6, 101376, false},
    {"sm_87", 8, 7, 166912, false}, {"sm_89", 8, 9, 101376, false},
    {"sm_90", 9, 0, 232448, false}, {"sm_90a", 9, 0, 232448, true},
};

llvm::ArrayRef<ChipInfo> phobos::supportedChipInfos() { return kChips; }

const ChipInfo *phobos::findChip(llvm::StringRef name) {
  const ChipInfo *found = llvm::find_if(
      kChips, [&](const ChipInfo &chip) { return chip.name == name; });
  return found == std::end(kChips) ? nullptr : found;
}

llvm::StringRef phobos::supportedChips() {
  return "sm_80, sm_86, sm_87, sm_89, sm_90 and sm_90a";
}

std::string phobos::chipForCapability(int major, int minor) {
  std::string plain = "sm_" + std::to_string(major * 10 + minor);
  // The architecture-specific name where there is one: it is a superset.
  for (const ChipInfo &chip : kChips)
    if (chip.major == major && chip.minor == minor && chip.archSpecific)
      return chip.name.str();
  return plain;
}
