//===- LauncherTest.cpp - Binding arguments to a launch contract ----------===//
//
// Contracts are built by hand so each test states exactly what the kernel
// agreed to; every rejection is checked with its full message, since the
// message is what a user sees instead of a GPU fault.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/Launcher.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace phobos;

namespace {

ParamSlot tensorSlot(std::string name, ElementType element,
                     std::vector<std::string> dims,
                     std::vector<int64_t> staticShape = {}) {
  ParamSlot slot;
  slot.kind = ParamSlot::Kind::Tensor;
  slot.name = std::move(name);
  slot.element = element;
  if (staticShape.empty())
    staticShape.assign(dims.size(), -1);
  slot.dims = std::move(dims);
  slot.staticShape = std::move(staticShape);
  return slot;
}

ParamSlot scalarSlot(std::string name, ElementType element) {
  ParamSlot slot;
  slot.kind = ParamSlot::Kind::Scalar;
  slot.name = std::move(name);
  slot.element = element;
  return slot;
}

/// C = alpha * A @ B + beta * C, 64x64 tiles, K promised a multiple of 16.
LaunchContract sgemmContract() {
  LaunchContract contract;
  contract.kernel = "sgemm";
  contract.params = {tensorSlot("A", ElementType::F32, {"M", "K"}),
                     tensorSlot("B", ElementType::F32, {"K", "N"}),
                     tensorSlot("C", ElementType::F32, {"M", "N"}),
                     scalarSlot("alpha", ElementType::F32),
                     scalarSlot("beta", ElementType::F32)};
  contract.grid[0].terms = {{"M", 64}};
  contract.grid[1].terms = {{"N", 64}};
  contract.aligned = {{"K", 16}};
  return contract;
}

TensorArgument tensor(uint64_t address, std::vector<int64_t> shape,
                      ElementType element = ElementType::F32) {
  TensorArgument argument;
  argument.address = address;
  argument.element = element;
  argument.shape = std::move(shape);
  return argument;
}

std::vector<LaunchArgument> sgemmArgs(int64_t m, int64_t k, int64_t n) {
  return {tensor(0x1000, {m, k}), tensor(0x2000, {k, n}),
          tensor(0x3000, {m, n}), ScalarArgument{1.5}, ScalarArgument{0.25}};
}

template <typename T> T read(void *param) {
  T value;
  std::memcpy(&value, param, sizeof value);
  return value;
}

/// The message of a bind that must fail.
std::string
rejection(const LaunchContract &contract, llvm::ArrayRef<LaunchArgument> args,
          std::optional<std::array<int64_t, 3>> grid = std::nullopt) {
  llvm::Expected<BoundLaunch> launch = bindArguments(contract, args, grid);
  if (launch)
    return "<accepted>";
  return llvm::toString(launch.takeError());
}

TEST(LauncherTest, PacksSgemmInAbiOrder) {
  llvm::Expected<BoundLaunch> launch =
      bindArguments(sgemmContract(), sgemmArgs(128, 32, 192));
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  std::vector<void *> params = launch->params();
  // A, M, K, B, K, N, C, M, N, alpha, beta.
  ASSERT_EQ(params.size(), 11u);
  EXPECT_EQ(read<uint64_t>(params[0]), 0x1000u);
  EXPECT_EQ(read<int32_t>(params[1]), 128);
  EXPECT_EQ(read<int32_t>(params[2]), 32);
  EXPECT_EQ(read<uint64_t>(params[3]), 0x2000u);
  EXPECT_EQ(read<int32_t>(params[4]), 32);
  EXPECT_EQ(read<int32_t>(params[5]), 192);
  EXPECT_EQ(read<uint64_t>(params[6]), 0x3000u);
  EXPECT_EQ(read<int32_t>(params[7]), 128);
  EXPECT_EQ(read<int32_t>(params[8]), 192);
  EXPECT_EQ(read<float>(params[9]), 1.5f);
  EXPECT_EQ(read<float>(params[10]), 0.25f);

  EXPECT_EQ(launch->getGrid(), (std::array<int64_t, 3>{2, 3, 1}));
  const LaunchContract::DimValues &dims = launch->getDims();
  EXPECT_EQ(dims.lookup("M"), 128);
  EXPECT_EQ(dims.lookup("K"), 32);
  EXPECT_EQ(dims.lookup("N"), 192);
}

TEST(LauncherTest, RaggedDimsRoundTheGridUp) {
  llvm::Expected<BoundLaunch> launch =
      bindArguments(sgemmContract(), sgemmArgs(65, 16, 1));
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  EXPECT_EQ(launch->getGrid(), (std::array<int64_t, 3>{2, 1, 1}));
}

TEST(LauncherTest, ExplicitGridOverridesInference) {
  llvm::Expected<BoundLaunch> launch =
      bindArguments(sgemmContract(), sgemmArgs(128, 32, 192),
                    std::array<int64_t, 3>{7, 1, 2});
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  EXPECT_EQ(launch->getGrid(), (std::array<int64_t, 3>{7, 1, 2}));
}

TEST(LauncherTest, PersistentKernelsLaunchAtMostTheResidentCtas) {
  LaunchContract contract = sgemmContract();
  contract.persistent = true;
  // 3 x 4 tiles: one CTA per tile without a count of resident CTAs, at
  // most that many with one, the tile grid unchanged; the parameters are
  // those of any launch.
  llvm::Expected<BoundLaunch> launch =
      bindArguments(contract, sgemmArgs(130, 32, 256));
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  EXPECT_EQ(launch->getTileGrid(), (std::array<int64_t, 3>{3, 4, 1}));
  EXPECT_EQ(launch->getGrid(), (std::array<int64_t, 3>{12, 1, 1}));
  EXPECT_EQ(launch->getGrid(132), (std::array<int64_t, 3>{12, 1, 1}));
  EXPECT_EQ(launch->getGrid(5), (std::array<int64_t, 3>{5, 1, 1}));
  EXPECT_EQ(launch->params().size(), 11u);
  // The inferred grid may be given; another may not.
  EXPECT_EQ(rejection(contract, sgemmArgs(130, 32, 256),
                      std::array<int64_t, 3>{3, 4, 1}),
            "<accepted>");
  EXPECT_EQ(rejection(contract, sgemmArgs(130, 32, 256),
                      std::array<int64_t, 3>{7, 1, 1}),
            "the kernel is persistent: its CTAs walk the grid (3, 4, "
            "1) of its tiles, and the launcher chooses how many it starts; a "
            "grid (7, 1, 1) cannot be given");
}

TEST(LauncherTest, StaticAxesPassNoExtent) {
  LaunchContract contract;
  contract.params = {tensorSlot("X", ElementType::F16, {"64", "N"}, {64, -1})};
  llvm::Expected<BoundLaunch> launch =
      bindArguments(contract, {tensor(0xabc0, {64, 10}, ElementType::F16)});
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  std::vector<void *> params = launch->params();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(read<uint64_t>(params[0]), 0xabc0u);
  EXPECT_EQ(read<int32_t>(params[1]), 10);
}

TEST(LauncherTest, PacksEveryScalarType) {
  LaunchContract contract;
  contract.params = {
      scalarSlot("h", ElementType::F16),    scalarSlot("b", ElementType::BF16),
      scalarSlot("f", ElementType::F32),    scalarSlot("d", ElementType::F64),
      scalarSlot("i", ElementType::I32),    scalarSlot("l", ElementType::I64),
      scalarSlot("flag", ElementType::Bool)};
  std::vector<LaunchArgument> args = {ScalarArgument{1.0}, ScalarArgument{-2.0},
                                      ScalarArgument{0.1}, ScalarArgument{0.1},
                                      ScalarArgument{-5},  ScalarArgument{1e15},
                                      ScalarArgument{1}};
  llvm::Expected<BoundLaunch> launch = bindArguments(contract, args);
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  std::vector<void *> params = launch->params();
  ASSERT_EQ(params.size(), 7u);
  EXPECT_EQ(read<uint16_t>(params[0]), 0x3c00); // f16 1.0
  EXPECT_EQ(read<uint16_t>(params[1]), 0xc000); // bf16 -2.0
  EXPECT_EQ(read<float>(params[2]), 0.1f);
  EXPECT_EQ(read<double>(params[3]), 0.1);
  EXPECT_EQ(read<int32_t>(params[4]), -5);
  EXPECT_EQ(read<int64_t>(params[5]), int64_t(1e15));
  EXPECT_EQ(read<uint8_t>(params[6]), 1);
}

TEST(LauncherTest, F16ScalarIsRoundedToNearestEven) {
  LaunchContract contract;
  contract.params = {scalarSlot("h", ElementType::F16)};
  // 1 + 2^-11 lies halfway between 1 and the next half; even is 1.
  llvm::Expected<BoundLaunch> launch =
      bindArguments(contract, {ScalarArgument{1.0 + 0x1p-11}});
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  EXPECT_EQ(read<uint16_t>(launch->params()[0]), 0x3c00);
  // The bytes after the value stay zero.
  EXPECT_EQ(read<uint16_t>(static_cast<uint8_t *>(launch->params()[0]) + 2), 0);
}

TEST(LauncherTest, SizeOneAxesMayHaveAnyStride) {
  std::vector<LaunchArgument> args = sgemmArgs(1, 32, 64);
  std::get<TensorArgument>(args[0]).strides = {7, 1};
  EXPECT_EQ(rejection(sgemmContract(), args), "<accepted>");
}

TEST(LauncherTest, DenseStridesAreAccepted) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  std::get<TensorArgument>(args[0]).strides = {32, 1};
  EXPECT_EQ(rejection(sgemmContract(), args), "<accepted>");
}

//===----------------------------------------------------------------------===//
// Rejections
//===----------------------------------------------------------------------===//

TEST(LauncherTest, RejectsWrongArgumentCount) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  args.pop_back();
  EXPECT_EQ(rejection(sgemmContract(), args), "expected 5 arguments (A, B, C, alpha, beta), got 4");

  llvm::Expected<BoundLaunch> launch = bindArguments(sgemmContract(), args);
  ASSERT_FALSE(static_cast<bool>(launch));
  llvm::handleAllErrors(launch.takeError(), [](const LaunchError &error) {
    EXPECT_EQ(error.getParam(), "");
    EXPECT_EQ(error.getReason(), "expected 5 arguments (A, B, C, alpha, beta), got 4");
  });
}

// A kernel may assume its tensor arguments do not overlap when it writes
// one: the compiler orders one tensor's accesses, not two tensors'.
TEST(LauncherTest, RejectsOverlapWithAWrittenTensor) {
  LaunchContract contract = sgemmContract();
  contract.params[2].written = true;
  // A: 128x32 f32 = 16 KiB from 0x10000; C starts in its last 16 bytes.
  std::vector<LaunchArgument> args = {
      tensor(0x10000, {128, 32}), tensor(0x40000, {32, 64}),
      tensor(0x10000 + 16 * 1024 - 16, {128, 64}), ScalarArgument{1.0},
      ScalarArgument{0.0}};
  EXPECT_EQ(rejection(contract, args),
            "argument 'C': overlaps argument 'A' in memory, and the kernel "
            "writes 'C': a kernel may assume that its tensor arguments do not "
            "overlap (docs/language.md, \"The memory model\"); pass a copy, "
            "or write the kernel with one argument that it reads and writes");
  // Right after A's last byte: accepted.
  std::get<TensorArgument>(args[2]).address = 0x10000 + 16 * 1024;
  EXPECT_EQ(rejection(contract, args), "<accepted>");
  // Two tensors the kernel only reads may share memory.
  std::get<TensorArgument>(args[1]).address = 0x10000;
  EXPECT_EQ(rejection(contract, args), "<accepted>");
}

TEST(LauncherTest, RejectsWrongElementType) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  std::get<TensorArgument>(args[0]).element = ElementType::F16;
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'A': expected f32 elements, got f16");

  llvm::Expected<BoundLaunch> launch = bindArguments(sgemmContract(), args);
  ASSERT_FALSE(static_cast<bool>(launch));
  llvm::handleAllErrors(launch.takeError(), [](const LaunchError &error) {
    EXPECT_EQ(error.getParam(), "A");
    EXPECT_EQ(error.getReason(), "expected f32 elements, got f16");
  });
}

TEST(LauncherTest, RejectsWrongRank) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  std::get<TensorArgument>(args[1]).shape = {32, 64, 1};
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'B': expected rank 2, got 3");
}

TEST(LauncherTest, ReportsTheFirstProblemOnly) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  std::get<TensorArgument>(args[1]).shape = {32};
  std::get<TensorArgument>(args[0]).element = ElementType::BF16;
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'A': expected f32 elements, got bf16");
}

TEST(LauncherTest, RejectsNonContiguousStrides) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  std::get<TensorArgument>(args[0]).strides = {1, 128};
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'A': strides [1, 128] are not dense row-major "
            "(expected [32, 1]); kernels index tensors as dense: pass a "
            "contiguous copy");
  std::get<TensorArgument>(args[0]).strides = {32};
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'A': expected 2 strides, got 1");
}

TEST(LauncherTest, RejectsWrongStaticExtent) {
  LaunchContract contract;
  contract.params = {tensorSlot("X", ElementType::F32, {"64", "N"}, {64, -1})};
  EXPECT_EQ(rejection(contract, {tensor(0x1000, {63, 10})}),
            "argument 'X': axis 0 (dim '64') is 63 but the kernel was "
            "compiled for 64");
}

TEST(LauncherTest, RejectsMismatchedSharedDim) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  std::get<TensorArgument>(args[1]).shape = {33, 64};
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'B': dim 'K' is 33 here but 32 in argument 'A'");
}

TEST(LauncherTest, RejectsMismatchedDimWithinOneTensor) {
  LaunchContract contract;
  contract.params = {tensorSlot("S", ElementType::F32, {"N", "N"})};
  EXPECT_EQ(rejection(contract, {tensor(0x1000, {4, 5})}),
            "argument 'S': axes 0 and 1 are both dim 'N' but are 4 and 5");
}

TEST(LauncherTest, RejectsEmptyExtent) {
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(0, 32, 64)),
            "argument 'A': axis 0 (dim 'M') is 0; extents must be at least 1");
}

TEST(LauncherTest, RejectsExtentBeyondIndexWidth) {
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(int64_t(1) << 31, 32, 64)),
            "argument 'A': axis 0 (dim 'M') is 2147483648, beyond the "
            "kernel's 32-bit index range (at most 2147483647)");
  // INT32_MAX itself is fine (and its grid, 2^25 CTAs, too).
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(INT32_MAX, 32, 64)),
            "<accepted>");
}

TEST(LauncherTest, RejectsBrokenAlignedPromise) {
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(128, 40, 64)),
            "argument 'A': breaks @aligned(K = 16): K is 40");
}

TEST(LauncherTest, RejectsTensorForScalar) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  args[3] = tensor(0x4000, {1});
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'alpha': expected a scalar (f32), got a tensor");
}

TEST(LauncherTest, RejectsScalarForTensor) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  args[2] = ScalarArgument{3};
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'C': expected a tensor of f32, got a scalar");
}

TEST(LauncherTest, RejectsBadIntegerScalars) {
  LaunchContract contract;
  contract.params = {scalarSlot("n", ElementType::I32)};
  EXPECT_EQ(rejection(contract, {ScalarArgument{2.5}}),
            "argument 'n': expected an integral i32, got 2.5");
  EXPECT_EQ(rejection(contract, {ScalarArgument{3e9}}),
            "argument 'n': 3000000000 does not fit in i32");
  EXPECT_EQ(rejection(contract, {ScalarArgument{-2147483648.0}}), "<accepted>");

  contract.params = {scalarSlot("l", ElementType::I64)};
  EXPECT_EQ(rejection(contract, {ScalarArgument{0x1p63}}),
            "argument 'l': 9223372036854775808 does not fit in i64");

  contract.params = {scalarSlot("flag", ElementType::Bool)};
  EXPECT_EQ(rejection(contract, {ScalarArgument{2}}),
            "argument 'flag': expected a bool (0 or 1), got 2");
}

TEST(LauncherTest, RejectsFloatScalarThatOverflows) {
  LaunchContract contract;
  contract.params = {scalarSlot("h", ElementType::F16)};
  EXPECT_EQ(rejection(contract, {ScalarArgument{65520}}),
            "argument 'h': 65520 overflows f16 to infinity");
  // An infinity asked for is passed on.
  EXPECT_EQ(rejection(contract, {ScalarArgument{HUGE_VAL}}), "<accepted>");
}

TEST(LauncherTest, RejectsExplicitGridOutOfRange) {
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(128, 32, 64),
                      std::array<int64_t, 3>{1, 65536, 1}),
            "grid y extent is 65536, more than the 65535 the GPU allows");
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(128, 32, 64),
                      std::array<int64_t, 3>{int64_t(1) << 31, 1, 1}),
            "grid x extent is 2147483648, more than the 2147483647 the GPU "
            "allows");
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(128, 32, 64),
                      std::array<int64_t, 3>{1, 1, 0}),
            "grid z extent is 0; it must be at least 1");
}

TEST(LauncherTest, RejectsInferredGridOutOfRange) {
  // N = 2^22 at 64 per CTA is 65536 CTAs on y.
  EXPECT_EQ(rejection(sgemmContract(), sgemmArgs(64, 16, int64_t(1) << 22)),
            "grid y extent is 65536, more than the 65535 the GPU allows");
}

TEST(LauncherTest, ReportsGridThatCannotBeInferred) {
  LaunchContract contract = sgemmContract();
  contract.grid[2].needsExplicitGrid = true;
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  llvm::Expected<BoundLaunch> launch = bindArguments(contract, args);
  ASSERT_FALSE(static_cast<bool>(launch));
  llvm::handleAllErrors(launch.takeError(), [](const LaunchError &error) {
    EXPECT_EQ(error.getParam(), "");
    EXPECT_EQ(error.getReason(),
              "the grid's z axis cannot be inferred from the kernel's "
              "slices; give the grid explicitly");
  });
  EXPECT_EQ(rejection(contract, args, std::array<int64_t, 3>{2, 1, 4}),
            "<accepted>");
}

} // namespace

TEST(LauncherTest, RejectsNullAndMisalignedData) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 192);
  std::get<TensorArgument>(args[1]).address = 0;
  EXPECT_EQ(rejection(sgemmContract(), args), "argument 'B': is a null pointer");
  std::get<TensorArgument>(args[1]).address = 0x2004;
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'B': data at 0x2004 is not 16-byte aligned (kernels "
            "read 16-byte vectors; a view that starts mid-array can break "
            "this: pass a copy)");
}

TEST(LauncherTest, NamesElementTypesAsTheCallerDoes) {
  std::vector<LaunchArgument> args = sgemmArgs(128, 32, 64);
  auto &a = std::get<TensorArgument>(args[0]);
  a.element = std::nullopt; // a type no kernel takes
  a.elementName = "numpy uint8";
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'A': expected f32 elements, got numpy uint8");
  a.element = ElementType::F16;
  a.elementName = "torch.float16";
  EXPECT_EQ(rejection(sgemmContract(), args),
            "argument 'A': expected f32 elements, got torch.float16");
}

TEST(LauncherTest, ChecksIntegerScalarsExactly) {
  LaunchContract contract;
  contract.kernel = "k";
  contract.params = {scalarSlot("n", ElementType::I64),
                     scalarSlot("m", ElementType::I32)};
  // 2^62 + 1 is not a double; the exact integer is what the kernel gets.
  int64_t big = (int64_t(1) << 62) + 1;
  ScalarArgument n{double(big), big}, m{7, 7};
  llvm::Expected<BoundLaunch> launch =
      bindArguments(contract, {n, m}, std::array<int64_t, 3>{1, 1, 1});
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  int64_t packed;
  std::memcpy(&packed, launch->getParamBytes()[0].data(), sizeof packed);
  EXPECT_EQ(packed, big);
  ScalarArgument tooBig{double(int64_t(1) << 40), int64_t(1) << 40};
  EXPECT_EQ(rejection(contract, {n, tooBig}),
            "argument 'm': 1099511627776 does not fit in i32");
}

TEST(LauncherTest, ChoosesTheGridAfterTheParameters) {
  // A grid that is a function of the dims: bind first, then set the grid.
  llvm::Expected<BoundLaunch> launch =
      bindParameters(sgemmContract(), sgemmArgs(128, 32, 192));
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  EXPECT_EQ(launch->getDims().lookup("N"), 192);
  ASSERT_FALSE(setGrid(sgemmContract(), *launch, std::nullopt));
  EXPECT_EQ(launch->getGrid(), (std::array<int64_t, 3>{2, 3, 1}));
  llvm::Error error =
      setGrid(sgemmContract(), *launch, std::array<int64_t, 3>{0, 1, 1});
  EXPECT_EQ(llvm::toString(std::move(error)),
            "grid x extent is 0; it must be at least 1");
}

namespace {

/// An hgemm whose A and B are read through TMA tensor maps.
LaunchContract tmaContract() {
  LaunchContract contract;
  contract.kernel = "hgemm";
  contract.params = {tensorSlot("A", ElementType::F16, {"M", "K"}),
                     tensorSlot("B", ElementType::F16, {"K", "N"}),
                     tensorSlot("C", ElementType::F16, {"M", "N"})};
  contract.grid[0].terms = {{"M", 128}};
  contract.tensorMaps = {{"A", 128, 64, 128}, {"B", 64, 64, 128}};
  return contract;
}

TEST(LauncherTest, EncodesTensorMapsAfterTheParameters) {
  std::vector<TensorMapRequest> requests;
  auto encoder = [&](const TensorMapRequest &request,
                     void *map) -> llvm::Error {
    requests.push_back(request);
    std::memset(map, static_cast<int>(requests.size()), 128);
    return llvm::Error::success();
  };
  std::vector<LaunchArgument> args = {
      tensor(0x1000, {256, 520}, ElementType::F16),
      tensor(0x2000, {520, 136}, ElementType::F16),
      tensor(0x3000, {256, 136}, ElementType::F16)};
  llvm::Expected<BoundLaunch> launch =
      bindArguments(tmaContract(), args, std::nullopt, encoder);
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  std::vector<void *> params = launch->params();
  // A, M, K, B, K, N, C, M, N, then the two maps.
  ASSERT_EQ(params.size(), 11u);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].address, 0x1000u);
  EXPECT_EQ(requests[0].planes, 0);
  EXPECT_EQ(requests[0].rows, 256);
  EXPECT_EQ(requests[0].cols, 520);
  EXPECT_EQ(requests[0].boxRows, 128);
  EXPECT_EQ(requests[0].boxCols, 64);
  EXPECT_EQ(requests[0].swizzleBytes, 128);
  EXPECT_EQ(requests[1].address, 0x2000u);
  EXPECT_EQ(requests[1].rows, 520);
  EXPECT_EQ(requests[1].cols, 136);
  for (int k = 0; k < 2; ++k) {
    void *map = params[9 + k];
    EXPECT_EQ(reinterpret_cast<uintptr_t>(map) % 64, 0u);
    EXPECT_EQ(read<uint8_t>(map), k + 1);
  }
}

TEST(LauncherTest, EncodesPlanesOfThreeDimensionalTensors) {
  LaunchContract contract;
  contract.kernel = "attention";
  contract.params = {tensorSlot("K", ElementType::F16, {"BH", "N", "64"},
                                {-1, -1, 64})};
  contract.grid[0].terms = {{"N", 64}};
  contract.tensorMaps = {{"K", 64, 64, 128}};
  std::vector<TensorMapRequest> requests;
  auto encoder = [&](const TensorMapRequest &request, void *) -> llvm::Error {
    requests.push_back(request);
    return llvm::Error::success();
  };
  std::vector<LaunchArgument> args = {
      tensor(0x1000, {12, 300, 64}, ElementType::F16)};
  llvm::Expected<BoundLaunch> launch =
      bindArguments(contract, args, std::nullopt, encoder);
  ASSERT_TRUE(static_cast<bool>(launch)) << llvm::toString(launch.takeError());
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].planes, 12);
  EXPECT_EQ(requests[0].rows, 300);
  EXPECT_EQ(requests[0].cols, 64);
  // K, BH, N (64 is static), the map.
  EXPECT_EQ(launch->params().size(), 4u);
}

TEST(LauncherTest, RejectsTensorMapsItCannotEncode) {
  std::vector<LaunchArgument> args = {
      tensor(0x1000, {256, 520}, ElementType::F16),
      tensor(0x2000, {520, 136}, ElementType::F16),
      tensor(0x3000, {256, 136}, ElementType::F16)};
  EXPECT_EQ(rejection(tmaContract(), args),
            "the kernel copies through TMA tensor maps, which this launcher "
            "cannot encode");
  auto encoder = [](const TensorMapRequest &, void *) -> llvm::Error {
    return llvm::Error::success();
  };
  // Rows of 130 f16 are 260 bytes: TMA steps in multiples of 16.
  args[1] = tensor(0x2000, {520, 130}, ElementType::F16);
  args[2] = tensor(0x3000, {256, 130}, ElementType::F16);
  llvm::Expected<BoundLaunch> launch =
      bindArguments(tmaContract(), args, std::nullopt, encoder);
  ASSERT_FALSE(static_cast<bool>(launch));
  EXPECT_EQ(llvm::toString(launch.takeError()),
            "argument 'B': rows of 130 elements are not a multiple of 16 "
            "bytes, which its TMA copies need");
  auto failing = [](const TensorMapRequest &, void *) -> llvm::Error {
    return llvm::createStringError("cuTensorMapEncodeTiled failed: boom");
  };
  args[1] = tensor(0x2000, {520, 136}, ElementType::F16);
  args[2] = tensor(0x3000, {256, 136}, ElementType::F16);
  launch = bindArguments(tmaContract(), args, std::nullopt, failing);
  ASSERT_FALSE(static_cast<bool>(launch));
  EXPECT_EQ(llvm::toString(launch.takeError()),
            "argument 'A': cuTensorMapEncodeTiled failed: boom");
}

} // namespace
