//===- LayoutsTest.cpp - The visualizer's layout and buffer data ----------===//
//
// The owners the layout panel draws for an mma.sync accumulator fragment,
// checked against the fragment of the PTX ISA's m16n8 figure (lane l holds
// rows l / 4 and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1, in
// registers c0-c3); and the banks the shared panel draws for a swizzled
// buffer, worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Viz/Layouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace phobos::tile;
using namespace phobos::viz;

namespace {

class VizLayoutsTest : public ::testing::Test {
protected:
  VizLayoutsTest() { context.loadDialect<TileDialect>(); }

  static std::vector<int64_t> integers(const llvm::json::Object &object,
                                       llvm::StringRef key) {
    std::vector<int64_t> values;
    if (const llvm::json::Array *array = object.getArray(key))
      for (const llvm::json::Value &value : *array)
        values.push_back(*value.getAsInteger());
    return values;
  }

  MLIRContext context;
};

TEST_F(VizLayoutsTest, MmaAccumulatorFragment) {
  Builder builder(&context);
  auto type = TileType::get(&context, {16, 8}, builder.getF32Type(),
                            MmaLayoutAttr::get(&context, {1, 1}));
  llvm::json::Object layout = describeTileLayout(type, /*numWarps=*/1);
  EXPECT_EQ(layout.getString("kind"), "mma");
  EXPECT_EQ(layout.getInteger("registers"), 4);
  EXPECT_EQ(layout.getArray("holders"), nullptr);
  std::vector<int64_t> thread = integers(layout, "thread");
  std::vector<int64_t> reg = integers(layout, "register");
  ASSERT_EQ(thread.size(), 128u);
  ASSERT_EQ(reg.size(), 128u);
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t column = 0; column < 8; ++column) {
      SCOPED_TRACE(::testing::Message() << "element " << row << ", " << column);
      int64_t lane = (row % 8) * 4 + column / 2;
      EXPECT_EQ(thread[row * 8 + column], lane);
      EXPECT_EQ(reg[row * 8 + column], (row / 8) * 2 + column % 2);
    }
}

TEST_F(VizLayoutsTest, TypeWithoutLayout) {
  Builder builder(&context);
  auto type = TileType::get(&context, {4}, builder.getF32Type(), Attribute());
  llvm::json::Object layout = describeTileLayout(type, 4);
  EXPECT_EQ(layout.getString("kind"), "none");
  EXPECT_EQ(layout.getArray("thread"), nullptr);
}

TEST_F(VizLayoutsTest, SwizzledBufferBanks) {
  Builder builder(&context);
  // 8 x 64 f16: rows of 128 bytes (8 units of 16), unit u of row r stored
  // at u xor r. Element (r, c) starts at byte 128 r + 16 (c / 8 xor r) +
  // 2 (c % 8), in bank (byte / 4) % 32.
  auto layout = SharedLayoutAttr::get(&context, {1, 0}, 0, 8, 1, 8, 0);
  auto type =
      SharedMemoryType::get(&context, {8, 64}, builder.getF16Type(), layout);
  llvm::json::Object buffer = describeSharedBuffer(type, /*offset=*/256);
  EXPECT_EQ(buffer.getString("layout"), "swizzle [8, 1, 8]");
  EXPECT_EQ(buffer.getInteger("slots"), 1);
  EXPECT_EQ(buffer.getInteger("bytes"), 1024);
  EXPECT_EQ(buffer.getInteger("offset"), 256);
  std::vector<int64_t> banks = integers(buffer, "banks");
  ASSERT_EQ(banks.size(), 512u);
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t column = 0; column < 64; ++column) {
      int64_t byte =
          256 + 128 * row + 16 * ((column / 8) ^ row) + 2 * (column % 8);
      EXPECT_EQ(banks[row * 64 + column], (byte / 4) % 32)
          << "element " << row << ", " << column;
    }
  // Column 0 of the 8 rows is in 8 different 16-byte units: banks 0, 4, ...
  EXPECT_EQ(banks[1 * 64], 4);
  EXPECT_EQ(banks[7 * 64], 28);
}

TEST_F(VizLayoutsTest, StagedBufferSlots) {
  Builder builder(&context);
  auto layout = SharedLayoutAttr::get(&context, {1, 0}, 8);
  auto type = SharedMemoryType::get(&context, {3, 16, 32}, builder.getF16Type(),
                                    layout);
  llvm::json::Object buffer = describeSharedBuffer(type, /*offset=*/-1);
  EXPECT_EQ(buffer.getString("layout"), "padding 8");
  EXPECT_EQ(buffer.getInteger("slots"), 3);
  EXPECT_EQ(integers(buffer, "slot_shape"), (std::vector<int64_t>{16, 32}));
  // Rows of 32 + 8 elements.
  EXPECT_EQ(buffer.getInteger("slot_bytes"), 16 * 40 * 2);
  EXPECT_FALSE(buffer.getInteger("offset"));
}

} // namespace
