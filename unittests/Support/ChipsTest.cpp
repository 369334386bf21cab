//===- ChipsTest.cpp - The chip facts every launcher shares ---------------===//

#include "Phobos/Support/Chips.h"

#include "gtest/gtest.h"

using namespace phobos;

// A pod (GpuBackend), phobos-run, the tuner and Python all compile for the
// chip chipForCapability names: an sm_90 card must get sm_90a (wgmma, TMA),
// or the cluster's leaves lose their fast paths.
TEST(ChipsTest, Sm90CardsCompileForSm90a) {
  EXPECT_EQ(chipForCapability(9, 0), "sm_90a");
  EXPECT_EQ(chipForCapability({9, 0}), "sm_90a");
}

TEST(ChipsTest, OtherCardsKeepTheirPlainName) {
  EXPECT_EQ(chipForCapability(8, 0), "sm_80");
  EXPECT_EQ(chipForCapability(8, 9), "sm_89");
  // Not a target, but named the CUDA way for the message that rejects it.
  EXPECT_EQ(chipForCapability(7, 5), "sm_75");
  EXPECT_FALSE(isValidChip(chipForCapability(7, 5)));
}

TEST(ChipsTest, EveryCapabilityOfATargetMapsToATarget) {
  for (const ChipInfo &chip : supportedChipInfos()) {
    std::string target = chipForCapability(chip.major, chip.minor);
    const ChipInfo *found = findChip(target);
    ASSERT_NE(found, nullptr) << target;
    EXPECT_EQ(found->major, chip.major);
    EXPECT_EQ(found->minor, chip.minor);
    EXPECT_TRUE(llvm::StringRef(supportedChips()).contains(chip.name));
  }
}

TEST(ChipsTest, SharedMemoryLimits) {
  EXPECT_EQ(findChip("sm_90a")->sharedMemoryBytes, 227 * 1024);
  EXPECT_EQ(findChip("sm_80")->sharedMemoryBytes, 163 * 1024);
  EXPECT_EQ(findChip("sm_86")->sharedMemoryBytes, 99 * 1024);
  EXPECT_EQ(findChip("sm_75"), nullptr);
  EXPECT_FALSE(isValidChip("sm_90b"));
}
