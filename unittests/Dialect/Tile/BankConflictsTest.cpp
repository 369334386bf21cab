//===- BankConflictsTest.cpp - The bank model and the chosen layouts ------===//
//
// The model counts what the hardware is documented to do for plain
// patterns; then, for the shared buffers the GEMM and attention examples
// stage (16-bit and tf32 operands, rows of 32 to 256 bytes), the layout
// tile-swizzle-shared would choose has no excess wavefront for its writes
// (the 16-byte vectors of the blocked layout a load gets, which cp.async
// moves) and its ldmatrix reads, where the unswizzled layout has them;
// and every swizzled layout maps the elements one to one onto the buffer.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/BankConflicts.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace phobos::tile;

namespace {

WarpAccess lanes(int64_t bytes, std::function<int64_t(int64_t)> address,
                 int64_t count = 32) {
  WarpAccess access;
  access.bytes = bytes;
  for (int64_t lane = 0; lane < count; ++lane)
    access.addresses.push_back(address(lane));
  return access;
}

TEST(BankModelTest, ConsecutiveWordsTakeOneWavefront) {
  WarpAccess access = lanes(4, [](int64_t l) { return 4 * l; });
  EXPECT_EQ(countWavefronts(access), 1);
  EXPECT_EQ(idealWavefronts(access), 1);
}

TEST(BankModelTest, OneBankIsAThirtyTwoWayConflict) {
  WarpAccess access = lanes(4, [](int64_t l) { return 128 * l; });
  EXPECT_EQ(countWavefronts(access), 32);
  EXPECT_EQ(idealWavefronts(access), 1);
}

TEST(BankModelTest, OneWordIsABroadcast) {
  EXPECT_EQ(countWavefronts(lanes(4, [](int64_t) { return 64; })), 1);
  // Two 16-bit elements of one word are one word.
  EXPECT_EQ(countWavefronts(lanes(2, [](int64_t l) { return 2 * l; })), 1);
}

TEST(BankModelTest, SixteenByteAccessesGoByQuarterWarps) {
  // 32 lanes x 16 consecutive bytes: 4 phases of 128 bytes.
  WarpAccess access = lanes(16, [](int64_t l) { return 16 * l; });
  EXPECT_EQ(countWavefronts(access), 4);
  EXPECT_EQ(idealWavefronts(access), 4);
  // ldmatrix's 8 rows 128 bytes apart: all in banks 0-3.
  WarpAccess rows = lanes(16, [](int64_t l) { return 128 * l; }, 8);
  EXPECT_EQ(countWavefronts(rows), 8);
  EXPECT_EQ(idealWavefronts(rows), 1);
}

TEST(BankModelTest, IdleLanesTakeNoPart) {
  WarpAccess access = lanes(4, [](int64_t l) { return l < 2 ? 128 * l : -1; });
  EXPECT_EQ(countWavefronts(access), 2);
}

class ChosenLayoutTest : public ::testing::Test {
protected:
  ChosenLayoutTest() { context.loadDialect<TileDialect>(); }

  /// A [rows, cols] buffer of `element` with axis `fast` contiguous, padded
  /// as tile-promote-shared pads it.
  SharedMemoryType buffer(int64_t rows, int64_t cols, Type element,
                          unsigned fast) {
    auto layout = SharedLayoutAttr::get(&context, {fast, 1 - fast},
                                        16 / getElementBytes(element));
    return SharedMemoryType::get(&context, {rows, cols}, element, layout);
  }
  SharedMemoryType relaid(SharedMemoryType type, SharedLayoutAttr layout) {
    return SharedMemoryType::get(&context, type.getShape(),
                                 type.getElementType(), layout);
  }
  /// The blocked layout tile-assign-layouts gives a load of `shape` by
  /// `warps` warps: 16-byte vectors along axis `fast`, lanes along it first.
  TileType loadedTile(ArrayRef<int64_t> shape, Type element, unsigned fast,
                      unsigned warps) {
    unsigned vec = 16 / getElementBytes(element);
    unsigned along = std::min<int64_t>(32, shape[fast] / vec);
    SmallVector<unsigned> spt(2, 1), tpw(2, 1), wpc(2, 1);
    spt[fast] = vec;
    tpw[fast] = along;
    tpw[1 - fast] = 32 / along;
    wpc[1 - fast] = warps;
    auto layout = BlockedLayoutAttr::get(&context, spt, tpw, wpc,
                                         {fast, 1 - fast});
    return TileType::get(&context, shape, element, layout);
  }

  MLIRContext context;
};

struct Staged {
  int64_t rows, cols;
  const char *element;
  unsigned fast;
};

TEST_F(ChosenLayoutTest, SwizzleRemovesEveryConflictOfTheStagedOperands) {
  Type f16 = Float16Type::get(&context), f32 = Float32Type::get(&context);
  // A [M, K] K-contiguous (f16 and tf32), B [K, N] N-contiguous (f16),
  // attention's K and V tiles, at the tile sizes of the examples.
  const Staged cases[] = {
      {128, 32, "f16", 1}, {128, 64, "f16", 1}, {64, 64, "f16", 1},
      {32, 128, "f16", 1}, {16, 128, "f16", 1}, {128, 16, "f16", 1},
      {64, 128, "f16", 1}, {128, 16, "f32", 1}, {128, 32, "f32", 1},
      {64, 8, "f32", 1},   {32, 64, "f16", 0}, {128, 64, "f32", 0},
  };
  for (const Staged &c : cases) {
    Type element = StringRef(c.element) == "f16" ? f16 : f32;
    SharedMemoryType padded = buffer(c.rows, c.cols, element, c.fast);
    SmallVector<BufferAccess> accesses;
    appendStoreAccesses(
        loadedTile(padded.getShape(), element, c.fast, /*warps=*/4), c.fast,
        accesses);
    appendLdmatrixAccesses(padded, accesses);
    ASSERT_FALSE(accesses.empty());

    SharedLayoutAttr swizzled = getSwizzledLayout(padded);
    ASSERT_TRUE(swizzled) << c.rows << "x" << c.cols << "x" << c.element;
    int64_t total = 0;
    EXPECT_EQ(countExcessWavefronts(relaid(padded, swizzled), swizzled,
                                    accesses, &total),
              0)
        << c.rows << "x" << c.cols << "x" << c.element;
    EXPECT_GT(total, 0);
    // Without padding or swizzle, ldmatrix's 8 rows share banks when rows
    // are a multiple of 128 bytes (and pairs or quads of them when 64 or 32).
    auto plain = SharedLayoutAttr::get(
        &context, cast<SharedLayoutAttr>(padded.getLayout()).getOrder(), 0);
    int64_t rowBytes = padded.getShape()[c.fast] * getElementBytes(element);
    if (rowBytes % 128 == 0)
      EXPECT_GT(countExcessWavefronts(relaid(padded, plain), plain, accesses),
                0)
          << c.rows << "x" << c.cols << "x" << c.element;
    // The swizzle saves the padding's memory.
    EXPECT_LT(getSharedMemoryBytes(relaid(padded, swizzled)),
              getSharedMemoryBytes(padded));
  }
}

TEST_F(ChosenLayoutTest, SwizzleParametersFollowTheRowLength) {
  Type f16 = Float16Type::get(&context), f32 = Float32Type::get(&context);
  auto params = [&](int64_t cols, Type element) {
    SharedLayoutAttr s = getSwizzledLayout(buffer(64, cols, element, 1));
    return s ? std::vector<unsigned>{s.getVec(), s.getPerPhase(),
                                     s.getMaxPhase()}
             : std::vector<unsigned>{};
  };
  EXPECT_EQ(params(64, f16), (std::vector<unsigned>{8, 1, 8}));  // 128 B rows
  EXPECT_EQ(params(32, f16), (std::vector<unsigned>{8, 2, 4}));  // 64 B
  EXPECT_EQ(params(16, f16), (std::vector<unsigned>{8, 4, 2}));  // 32 B
  EXPECT_EQ(params(48, f16), (std::vector<unsigned>{8, 4, 2}));  // 96 B
  EXPECT_EQ(params(32, f32), (std::vector<unsigned>{4, 1, 8}));
  EXPECT_EQ(params(16, f32), (std::vector<unsigned>{4, 2, 4}));
  // One unit a row, or an odd number: rows already fall apart.
  EXPECT_TRUE(params(8, f16).empty());
  EXPECT_TRUE(params(40, f16).empty());
}

TEST_F(ChosenLayoutTest, SwizzledOffsetsAreABijectionWithinEachRow) {
  Type f16 = Float16Type::get(&context);
  for (int64_t cols : {16, 32, 64, 128}) {
    SharedMemoryType padded = buffer(32, cols, f16, 1);
    SharedLayoutAttr swizzled = getSwizzledLayout(padded);
    ASSERT_TRUE(swizzled);
    std::set<int64_t> seen;
    for (int64_t r = 0; r < 32; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t offset = swizzled.getOffset({32, cols}, {r, c});
        EXPECT_EQ(offset / cols, r);
        // A 16-byte unit stays whole and in order.
        EXPECT_EQ(offset % 8, c % 8);
        seen.insert(offset);
      }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), 32 * cols);
  }
}

} // namespace
