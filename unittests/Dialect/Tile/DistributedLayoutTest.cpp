//===- DistributedLayoutTest.cpp - What each layout means -----------------===//
//
// For every layout kind and a range of shapes (including shapes smaller
// than the CTA's footprint), every register of every thread holds an
// element of the tile, every element has exactly the documented number of
// canonical owners, the owner query agrees with enumerating every register
// of the CTA, register numbering round-trips, and the vector width claims
// only consecutive elements.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <map>

using namespace mlir;
using namespace phobos::tile;

namespace {

using Shape = std::vector<int64_t>;

class DistributedLayoutTest : public ::testing::Test {
protected:
  DistributedLayoutTest() { context.loadDialect<TileDialect>(); }

  BlockedLayoutAttr blocked(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                            ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
    return BlockedLayoutAttr::get(&context, spt, tpw, wpc, order);
  }
  MmaLayoutAttr mma(unsigned wm, unsigned wn) {
    return MmaLayoutAttr::get(&context, {wm, wn});
  }
  SliceLayoutAttr slice(unsigned dim, Attribute parent) {
    return SliceLayoutAttr::get(&context, dim, parent);
  }

  /// Every check, for `layout` on `shape` in a CTA of `numWarps` warps;
  /// `replication` is how many canonical copies each element has.
  void check(DistributedLayoutInterface layout, ArrayRef<int64_t> shape,
             int64_t numWarps, int64_t replication) {
    SCOPED_TRACE(::testing::Message() << "shape [" << shapeString(shape)
                                      << "] of " << debugString(layout));
    DistributedLayout dist = layout.distribute(shape);
    ASSERT_EQ(dist.getRank(), shape.size());
    EXPECT_EQ(layout.getNumRegisters(shape), dist.numRegisters());
    int64_t expected = 1;
    for (const AxisDistribution &axis : dist.getAxes())
      expected *= axis.registers();
    EXPECT_EQ(dist.numRegisters(), expected);

    // Forward: every register of every thread.
    std::map<std::vector<int64_t>, std::vector<RegisterOwner>> holders;
    for (int64_t warp = 0; warp < numWarps; ++warp)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t reg = 0; reg < dist.numRegisters(); ++reg) {
          bool canonical = false;
          SmallVector<int64_t, 4> coords =
              dist.elementOf(warp, lane, reg, &canonical);
          for (size_t a = 0; a < shape.size(); ++a) {
            ASSERT_GE(coords[a], 0);
            ASSERT_LT(coords[a], shape[a]);
          }
          holders[std::vector<int64_t>(coords.begin(), coords.end())]
              .push_back({warp, lane, reg, canonical});
        }

    // Every element: held, with `replication` canonical copies, and the
    // inverse query names exactly its holders.
    int64_t elements = 1;
    for (int64_t extent : shape)
      elements *= extent;
    EXPECT_EQ(static_cast<int64_t>(holders.size()), elements);
    for (auto &[coords, owners] : holders) {
      int64_t canonical = llvm::count_if(
          owners, [](const RegisterOwner &o) { return o.canonical; });
      EXPECT_EQ(canonical, replication)
          << "element [" << shapeString(coords) << "]";
      SmallVector<RegisterOwner> queried = dist.owners(coords, numWarps);
      ASSERT_EQ(queried.size(), owners.size())
          << "element [" << shapeString(coords) << "]";
      for (size_t i = 0; i < owners.size(); ++i)
        EXPECT_TRUE(queried[i] == owners[i])
            << "element [" << shapeString(coords) << "] owner " << i;
    }

    // Register numbering round-trips.
    for (int64_t reg = 0; reg < dist.numRegisters(); ++reg)
      EXPECT_EQ(dist.registerIndex(dist.perAxisIndices(reg)), reg);

    // A vector along the last axis covers consecutive elements of one row.
    unsigned last = shape.size() - 1;
    int64_t width = dist.vectorWidth(last, 4);
    EXPECT_GE(width, 1);
    EXPECT_LE(width, 4);
    for (int64_t reg = 0; reg < dist.numRegisters(); ++reg) {
      SmallVector<int64_t, 4> q = dist.perAxisIndices(reg);
      if (q[last] % width != 0)
        continue;
      SmallVector<int64_t, 4> first = dist.elementOf(0, 5, reg);
      for (int64_t k = 1; k < width; ++k) {
        SmallVector<int64_t, 4> qk = q;
        qk[last] += k;
        SmallVector<int64_t, 4> next =
            dist.elementOf(0, 5, dist.registerIndex(qk));
        EXPECT_EQ(next[last], first[last] + k);
      }
    }
  }

  static std::string shapeString(ArrayRef<int64_t> shape) {
    std::string text;
    for (size_t i = 0; i < shape.size(); ++i)
      text += (i ? "x" : "") + std::to_string(shape[i]);
    return text;
  }
  static std::string debugString(Attribute attr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    return text;
  }

  MLIRContext context;
};

TEST_F(DistributedLayoutTest, BlockedRank1) {
  auto layout = blocked({4}, {32}, {4}, {0});
  for (int64_t n : {1, 3, 128, 512, 1000, 4096})
    check(layout, {n}, 4, 1);
}

TEST_F(DistributedLayoutTest, BlockedRank2) {
  auto rows = blocked({1, 4}, {2, 16}, {2, 1}, {1, 0});
  auto cols = blocked({4, 1}, {8, 4}, {1, 4}, {0, 1});
  auto micro = blocked({4, 4}, {4, 8}, {2, 4}, {1, 0});
  for (const Shape &shape : std::vector<Shape>{
           {1, 1}, {2, 3}, {4, 64}, {3, 5}, {64, 64}, {1, 64}, {64, 1},
           {128, 96}}) {
    check(rows, shape, 2, 1);
    check(cols, shape, 4, 1);
    check(micro, shape, 8, 1);
  }
}

TEST_F(DistributedLayoutTest, BlockedRank3) {
  auto layout = blocked({1, 1, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0});
  for (const Shape &shape :
       std::vector<Shape>{{1, 1, 1}, {2, 3, 4}, {4, 8, 16}, {5, 9, 33}})
    check(layout, shape, 4, 1);
}

TEST_F(DistributedLayoutTest, Mma) {
  for (auto [wm, wn] : {std::pair<unsigned, unsigned>{1, 1}, {2, 4}, {4, 2}})
    for (const Shape &shape : std::vector<Shape>{
             {16, 8}, {64, 64}, {128, 128}, {32, 256}, {8, 4}})
      check(mma(wm, wn), shape, wm * wn, 1);
}

TEST_F(DistributedLayoutTest, Slices) {
  // The threads the parent spreads along the sliced axis hold copies.
  auto parent = blocked({1, 4}, {2, 16}, {2, 1}, {1, 0});
  for (int64_t n : {1, 7, 64, 200}) {
    check(slice(1, parent), {n}, 2, 16); // 16 lanes along axis 1
    check(slice(0, parent), {n}, 2, 4);  // 2 lanes x 2 warps along axis 0
  }
  auto acc = mma(2, 4);
  for (int64_t n : {16, 64, 128}) {
    check(slice(1, acc), {n}, 8, 4 * 4); // 4 lanes x 4 warps along columns
    check(slice(0, acc), {n}, 8, 8 * 2); // 8 lanes x 2 warps along rows
  }
  // A slice of a slice: rank 3 down to rank 1.
  auto cube = blocked({1, 1, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0});
  check(slice(0, slice(0, cube)), {16}, 4, 2 * 2 * 4);
}

TEST_F(DistributedLayoutTest, SmallTilesWrap) {
  // A [4, 32] tile under 8 warps of a layout built for more: warps hold
  // copies, and only one of each element's holders is canonical.
  auto layout = blocked({1, 4}, {4, 8}, {8, 1}, {1, 0});
  DistributedLayout dist = layout.distribute({4, 32});
  EXPECT_TRUE(dist.axis(0).wraps);
  EXPECT_FALSE(dist.axis(1).wraps);
  check(layout, {4, 32}, 8, 1);
  EXPECT_EQ(dist.owners({0, 0}, 8).size(), 8u); // every warp holds row 0
}

TEST_F(DistributedLayoutTest, ExtentOneAxesKeepOneRegister) {
  // A row statistic ([128, 1]) in the f32 attention's layout: the 4 columns
  // a thread would hold are one element, so it keeps one register a row,
  // and a loop carrying it carries 8 registers, not 32.
  auto layout = blocked({4, 4}, {4, 8}, {4, 2}, {1, 0});
  DistributedLayout dist = layout.distribute({128, 1});
  EXPECT_EQ(dist.axis(1).registers(), 1);
  EXPECT_TRUE(dist.axis(1).wraps);
  EXPECT_EQ(dist.numRegisters(), 8);
  check(layout, {128, 1}, 8, 1);
  // The same for an mma accumulator's row statistic: one column, not two.
  DistributedLayout acc = mma(4, 2).distribute({128, 1});
  EXPECT_EQ(acc.axis(1).registers(), 1);
  EXPECT_EQ(acc.numRegisters(),
            mma(4, 2).distribute({128, 8}).numRegisters() / 2);
  check(mma(4, 2), {128, 1}, 8, 1);
}

TEST_F(DistributedLayoutTest, VectorWidth) {
  auto layout = blocked({1, 8}, {4, 8}, {1, 1}, {1, 0});
  DistributedLayout dist = layout.distribute({4, 64});
  EXPECT_EQ(dist.vectorWidth(1, 4), 4); // f32: 16 bytes
  EXPECT_EQ(dist.vectorWidth(1, 2), 8); // f16
  EXPECT_EQ(dist.vectorWidth(1, 0), 1); // booleans
  EXPECT_EQ(dist.vectorWidth(1, 4, /*rowLength=*/66), 2);
  EXPECT_EQ(dist.vectorWidth(0, 4), 1); // one element per thread
  // Wrapping copies cannot be vectorised.
  EXPECT_EQ(layout.distribute({4, 4}).vectorWidth(1, 4), 1);
}

TEST_F(DistributedLayoutTest, SwappedWgmmaLayoutsAreTheFragments) {
  // A swap_ab dot on [M, N] = [256, 128] with 8 warps: the m64nMk8 wgmma of
  // warpgroup g computes D^T, its register 4j + 2h + c of lane l in warp w
  // being instruction row 16 (w % 4) + l / 4 + 8h (result column
  // 64 g + that row, mapped to 16 w + 2 (l / 4) + h) and instruction column
  // 8j + 2 (l % 4) + c (result row). The accumulator layout holds that
  // element in its register 4j + 2c + h (the lowering's permutation).
  const int64_t m = 256, n = 128, warps = 8;
  DistributedLayout acc =
      getSwappedWgmmaAccumulatorLayout(&context, warps).distribute({m, n});
  ASSERT_EQ(acc.numRegisters(), m / 2);
  check(getSwappedWgmmaAccumulatorLayout(&context, warps), {m, n}, warps, 1);
  // Calls `expect(w, l, r)` for every register r of every thread.
  auto forEachRegister = [&](int64_t registers, auto expect) {
    for (int64_t w = 0; w < warps; ++w)
      for (int64_t l = 0; l < 32; ++l)
        for (int64_t r = 0; r < registers; ++r)
          expect(w, l, r);
  };
  forEachRegister(m / 2, [&](int64_t w, int64_t l, int64_t r) {
    int64_t j = r / 4, h = (r / 2) % 2, c = r % 2;
    SmallVector<int64_t, 4> element = acc.elementOf(w, l, 4 * j + 2 * c + h);
    EXPECT_EQ(element[0], 8 * j + 2 * (l % 4) + c);
    EXPECT_EQ(element[1], 16 * w + 2 * (l / 4) + h);
  });
  // B [K, N] = [32, 128] in registers: register 4s + i of lane l is the
  // wgmma's A fragment register a_i of k-step s, (row g + 8 (i % 2), k
  // t + 4 (i / 2)) with g = l / 4, t = l % 4, row g (g + 8) being column
  // 16 w + 2g (+ 1) of B.
  const int64_t k = 32;
  DistributedLayout frag =
      getSwappedWgmmaFragmentLayout(&context, warps).distribute({k, n});
  ASSERT_EQ(frag.numRegisters(), k / 2);
  check(getSwappedWgmmaFragmentLayout(&context, warps), {k, n}, warps, 1);
  forEachRegister(k / 2, [&](int64_t w, int64_t l, int64_t r) {
    int64_t s = r / 4, i = r % 4;
    SmallVector<int64_t, 4> element = frag.elementOf(w, l, r);
    EXPECT_EQ(element[0], 8 * s + l % 4 + 4 * (i / 2));
    EXPECT_EQ(element[1], 16 * w + 2 * (l / 4) + i % 2);
  });
  // Pairs along N are 8-byte loads and stores.
  EXPECT_EQ(frag.vectorWidth(1, 4), 2);
  EXPECT_EQ(acc.vectorWidth(1, 4), 2);
}

} // namespace
