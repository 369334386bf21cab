//===- LaunchContractTest.cpp - What a launch of a kernel must agree to ---===//
//
// The contract travels beside the PTX as JSON and every launcher reads it
// back, so the round trip must lose nothing; the grid it infers must cover
// ragged dims.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/LaunchContract.h"

#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <algorithm>

using namespace phobos;

namespace {

LaunchContract attentionLikeContract() {
  LaunchContract contract;
  contract.kernel = "flash_attention";
  contract.variant = {{"BLOCK_M", 128}, {"BLOCK_N", 64}, {"STAGES", 2}};
  ParamSlot q;
  q.name = "Q";
  q.element = ElementType::F16;
  q.dims = {"B", "S", "64"};
  q.staticShape = {-1, -1, 64};
  q.read = true;
  ParamSlot out = q;
  out.name = "O";
  out.read = false;
  out.written = true;
  ParamSlot scale;
  scale.kind = ParamSlot::Kind::Scalar;
  scale.name = "scale";
  scale.element = ElementType::F32;
  contract.params = {q, out, scale};
  contract.indexBits = 32;
  contract.ctaThreads = 128;
  contract.sharedMemoryBytes = 49152;
  contract.aligned = {{"S", 64}, {"B", 1}};
  contract.alignedAt = {{"S", "attention.ph:2:14"}};
  contract.tensorMaps = {{contract.params[0].name, 128, 64, 128}};
  contract.grid[0].terms = {{"S", 128}};
  contract.grid[1].terms = {{"B", 1}};
  contract.grid[2].needsExplicitGrid = true;
  contract.persistent = true;
  return contract;
}

void expectSameContract(const LaunchContract &a, const LaunchContract &b) {
  EXPECT_EQ(a.kernel, b.kernel);
  EXPECT_EQ(a.variant, b.variant);
  ASSERT_EQ(a.params.size(), b.params.size());
  for (size_t i = 0; i < a.params.size(); ++i) {
    const ParamSlot &x = a.params[i], &y = b.params[i];
    EXPECT_EQ(x.kind, y.kind) << x.name;
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.element, y.element) << x.name;
    EXPECT_EQ(x.dims, y.dims) << x.name;
    EXPECT_EQ(x.staticShape, y.staticShape) << x.name;
    EXPECT_EQ(x.read, y.read) << x.name;
    EXPECT_EQ(x.written, y.written) << x.name;
  }
  EXPECT_EQ(a.indexBits, b.indexBits);
  EXPECT_EQ(a.ctaThreads, b.ctaThreads);
  EXPECT_EQ(a.sharedMemoryBytes, b.sharedMemoryBytes);
  EXPECT_EQ(a.persistent, b.persistent);
  // @aligned is a JSON object, whose keys have no order.
  auto sorted = [](std::vector<std::pair<std::string, int64_t>> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(a.aligned), sorted(b.aligned));
  EXPECT_EQ(a.alignedAt, b.alignedAt);
  ASSERT_EQ(a.tensorMaps.size(), b.tensorMaps.size());
  for (auto [x, y] : llvm::zip_equal(a.tensorMaps, b.tensorMaps)) {
    EXPECT_EQ(x.param, y.param);
    EXPECT_EQ(x.boxRows, y.boxRows);
    EXPECT_EQ(x.boxCols, y.boxCols);
    EXPECT_EQ(x.swizzleBytes, y.swizzleBytes);
  }
  for (int axis = 0; axis < 3; ++axis) {
    const GridAxis &x = a.grid[axis], &y = b.grid[axis];
    EXPECT_EQ(x.needsExplicitGrid, y.needsExplicitGrid) << "axis " << axis;
    ASSERT_EQ(x.terms.size(), y.terms.size()) << "axis " << axis;
    for (size_t i = 0; i < x.terms.size(); ++i) {
      EXPECT_EQ(x.terms[i].dim, y.terms[i].dim);
      EXPECT_EQ(x.terms[i].divisor, y.terms[i].divisor);
    }
  }
}

TEST(LaunchContractTest, JSONRoundTrip) {
  LaunchContract contract = attentionLikeContract();
  llvm::Expected<LaunchContract> back =
      LaunchContract::fromJSON(contract.toJSON());
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  expectSameContract(contract, *back);
}

TEST(LaunchContractTest, JSONRoundTripThroughText) {
  // As phobos-translate writes the file and a launcher reads it.
  LaunchContract contract = attentionLikeContract();
  std::string text = llvm::formatv("{0:2}", contract.toJSON()).str();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  llvm::Expected<LaunchContract> back = LaunchContract::fromJSON(*parsed);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  expectSameContract(contract, *back);
  // And writes the same text again.
  EXPECT_EQ(text, llvm::formatv("{0:2}", back->toJSON()).str());
}

TEST(LaunchContractTest, FromJSONRejectsMalformedInput) {
  llvm::Expected<LaunchContract> notObject =
      LaunchContract::fromJSON(llvm::json::Value(3));
  ASSERT_FALSE(static_cast<bool>(notObject));
  EXPECT_EQ(llvm::toString(notObject.takeError()),
            "launch contract: not a JSON object");

  llvm::json::Object object{
      {"kernel", "k"},
      {"params", llvm::json::Array{llvm::json::Object{
                     {"name", "x"}, {"kind", "scalar"}, {"dtype", "f8"}}}}};
  llvm::Expected<LaunchContract> badType =
      LaunchContract::fromJSON(std::move(object));
  ASSERT_FALSE(static_cast<bool>(badType));
  EXPECT_EQ(llvm::toString(badType.takeError()),
            "launch contract: a parameter has an unknown dtype");
}

TEST(LaunchContractTest, GridCoversRaggedDims) {
  LaunchContract contract;
  ParamSlot a;
  a.name = "A";
  a.dims = {"M", "N"};
  a.staticShape = {-1, -1};
  contract.params = {a};
  contract.grid[0].terms = {{"M", 64}};
  // Two slices on y: the grid must cover the larger.
  contract.grid[1].terms = {{"N", 128}, {"M", 32}};
  LaunchContract::DimValues dims;
  dims["M"] = 100;
  dims["N"] = 1;
  llvm::Expected<std::array<int64_t, 3>> grid = contract.gridFor(dims);
  ASSERT_TRUE(static_cast<bool>(grid)) << llvm::toString(grid.takeError());
  EXPECT_EQ(*grid, (std::array<int64_t, 3>{2, 4, 1}));

  dims["M"] = 64;
  dims["N"] = 129;
  grid = contract.gridFor(dims);
  ASSERT_TRUE(static_cast<bool>(grid)) << llvm::toString(grid.takeError());
  EXPECT_EQ(*grid, (std::array<int64_t, 3>{1, 2, 1}));
}

TEST(LaunchContractTest, GridUsesStaticExtents) {
  LaunchContract contract;
  ParamSlot a;
  a.name = "A";
  a.dims = {"R", "C"};
  a.staticShape = {256, -1};
  contract.params = {a};
  contract.grid[0].terms = {{"R", 64}};
  llvm::Expected<std::array<int64_t, 3>> grid = contract.gridFor({});
  ASSERT_TRUE(static_cast<bool>(grid)) << llvm::toString(grid.takeError());
  EXPECT_EQ(*grid, (std::array<int64_t, 3>{4, 1, 1}));
  EXPECT_EQ(contract.dynamicDims(), std::vector<std::string>{"C"});
}

TEST(LaunchContractTest, GridReportsMissingDim) {
  LaunchContract contract;
  contract.grid[0].terms = {{"M", 64}};
  llvm::Expected<std::array<int64_t, 3>> grid = contract.gridFor({});
  ASSERT_FALSE(static_cast<bool>(grid));
  EXPECT_EQ(llvm::toString(grid.takeError()), "the grid needs dim 'M'");
}

TEST(LaunchContractTest, GridReportsAxisThatNeedsExplicitGrid) {
  LaunchContract contract;
  contract.grid[0].terms = {{"M", 64}};
  contract.grid[1].needsExplicitGrid = true;
  LaunchContract::DimValues dims;
  dims["M"] = 64;
  llvm::Expected<std::array<int64_t, 3>> grid = contract.gridFor(dims);
  ASSERT_FALSE(static_cast<bool>(grid));
  EXPECT_EQ(llvm::toString(grid.takeError()),
            "the grid's y axis cannot be inferred from the kernel's slices; "
            "give the grid explicitly");
}

} // namespace
