//===- CudaDriverTest.cpp - The CUDA driver API, opened at run time -------===//
//
// Without a driver (the CPU build machines) every entry point must fail
// with a message that says so, never crash. With one, a hand-written PTX
// kernel goes through the whole path: JIT, argument binding, launch,
// copies and timing.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/Launcher.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

#include <numeric>
#include <thread>
#include <vector>

using namespace phobos;
using namespace phobos::cuda;

namespace {

bool driverLibraryPresent() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library)
    dlclose(library);
  return library != nullptr;
}

/// The driver, or skips the test where there is no usable GPU.
#define GET_DRIVER_OR_SKIP(driver)                                             \
  llvm::Expected<CudaDriver &> driver##OrError = CudaDriver::get();            \
  if (!driver##OrError)                                                        \
    GTEST_SKIP() << "no GPU: " << llvm::toString(driver##OrError.takeError()); \
  CudaDriver &driver = *driver##OrError;

std::string errorText(llvm::Error error) {
  return llvm::toString(std::move(error));
}

TEST(CudaDriverTest, MissingDriverIsReported) {
  if (driverLibraryPresent())
    GTEST_SKIP() << "libcuda.so.1 is present on this machine";
  llvm::Expected<CudaDriver &> driver = CudaDriver::get();
  ASSERT_FALSE(static_cast<bool>(driver));
  std::string message = errorText(driver.takeError());
  EXPECT_NE(message.find("cannot open libcuda.so.1 (no NVIDIA driver on this "
                         "machine): "),
            std::string::npos)
      << message;

  // The failure is remembered and every entry point reports it.
  EXPECT_EQ(errorText(CudaDriver::get().takeError()), message);
  EXPECT_EQ(errorText(DeviceBuffer::allocate(16).takeError()), message);
  EXPECT_EQ(errorText(Module::load(".version 7.0").takeError()), message);
  EXPECT_EQ(errorText(Stream::create().takeError()), message);
  EXPECT_EQ(errorText(Event::create().takeError()), message);
}

TEST(CudaDriverTest, EmptyObjectsNeedNoDriver) {
  llvm::Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(0);
  ASSERT_TRUE(static_cast<bool>(buffer)) << errorText(buffer.takeError());
  EXPECT_EQ(buffer->devicePointer(), 0u);
  EXPECT_EQ(buffer->size(), 0u);
  float value = 1;
  EXPECT_EQ(errorText(buffer->copyFromHost(&value, sizeof value)),
            "cannot copy 4 bytes into a device buffer of 0 bytes");
  EXPECT_EQ(errorText(buffer->copyToHost(&value, sizeof value)),
            "cannot copy 4 bytes out of a device buffer of 0 bytes");
  EXPECT_FALSE(static_cast<bool>(buffer->fill(0)));

  Function function;
  EXPECT_EQ(errorText(function.launch({}, {}, Stream())), "no kernel function");
  Module module;
  EXPECT_EQ(errorText(module.getFunction("k").takeError()), "no module loaded");
  Stream stream;
  EXPECT_EQ(errorText(stream.synchronize()),
            "cannot synchronize a stream never created");
}

TEST(CudaDriverTest, EmptyHandlesMoveWithoutADriver) {
  // A moved-to handle releases what it held first; holding nothing, no
  // driver is asked (this machine may have none), and moving a handle into
  // itself keeps it.
  Stream stream, other;
  stream = std::move(other);
  Stream &alias = stream;
  stream = std::move(alias);
  EXPECT_EQ(stream.handle(), nullptr);
  Event event, otherEvent;
  event = std::move(otherEvent);
  EXPECT_EQ(errorText(Event::elapsedMs(event, otherEvent).takeError()),
            "cannot time events never created");
  DeviceBuffer buffer, otherBuffer;
  buffer = std::move(otherBuffer);
  EXPECT_EQ(buffer.size(), 0u);
  PinnedBuffer pinned, otherPinned;
  pinned = std::move(otherPinned);
  EXPECT_EQ(pinned.data(), nullptr);
  Module module, otherModule;
  module = std::move(otherModule);
  EXPECT_EQ(errorText(module.getFunction("k").takeError()), "no module loaded");
  IpcMapping mapping, otherMapping;
  mapping = std::move(otherMapping);
}

//===----------------------------------------------------------------------===//
// On a GPU
//===----------------------------------------------------------------------===//

/// x[i] *= a for i < n: a pointer, a dynamic extent and an f32 scalar, as
/// convert-tile-to-gpu lays out `scale(x: f32[N], a: f32)`.
constexpr const char *scalePtx = R"(
.version 7.0
.target sm_50
.address_size 64

.visible .entry scale(
    .param .u64 scale_x,
    .param .u32 scale_n,
    .param .f32 scale_a)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [scale_x];
    ld.param.u32 %r2, [scale_n];
    ld.param.f32 %f1, [scale_a];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.s32 %p1, %r1, %r2;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    mul.f32 %f3, %f2, %f1;
    st.global.f32 [%rd4], %f3;
DONE:
    ret;
}
)";

TEST(CudaDriverTest, BadOrdinalIsNotRemembered) {
  if (!driverLibraryPresent())
    GTEST_SKIP() << "no libcuda.so.1 on this machine";
  // Run first (or alone), the bad ordinal fails in cuDeviceGet; after
  // another test opened device 0, it is refused as a second device.
  llvm::Expected<CudaDriver &> bad = CudaDriver::get(999);
  ASSERT_FALSE(static_cast<bool>(bad));
  std::string message = errorText(bad.takeError());
  EXPECT_TRUE(message.find("cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE") ==
                  0 ||
              message.find("already in use on device 0") != std::string::npos)
      << message;
  GET_DRIVER_OR_SKIP(driver);
  EXPECT_FALSE(driver.describeDevice().empty());
}

TEST(CudaDriverTest, DescribesTheDevice) {
  GET_DRIVER_OR_SKIP(driver);
  std::array<int, 2> capability = driver.computeCapability();
  EXPECT_GE(capability[0], 5);
  EXPECT_GE(driver.maxSharedMemoryPerBlock(), 48 * 1024);
  std::string description = driver.describeDevice();
  std::string sm = "(sm_" + std::to_string(capability[0]) +
                   std::to_string(capability[1]) + ", ";
  EXPECT_NE(description.find(sm), std::string::npos) << description;
  EXPECT_EQ(description.substr(description.size() - 5), " GiB)");
  RecordProperty("device", description);
  // One process, one device.
  llvm::Expected<CudaDriver &> other = CudaDriver::get(1);
  ASSERT_FALSE(static_cast<bool>(other));
  EXPECT_NE(errorText(other.takeError()).find("already in use on device 0"),
            std::string::npos);
}

TEST(CudaDriverTest, LaunchesABoundKernel) {
  GET_DRIVER_OR_SKIP(driver);
  (void)driver;
  llvm::Expected<Module> module = Module::load(scalePtx);
  ASSERT_TRUE(static_cast<bool>(module)) << errorText(module.takeError());
  llvm::Expected<Function> function = module->getFunction("scale");
  ASSERT_TRUE(static_cast<bool>(function)) << errorText(function.takeError());
  llvm::Expected<std::array<int, 2>> usage = function->registersAndSpills();
  ASSERT_TRUE(static_cast<bool>(usage)) << errorText(usage.takeError());
  EXPECT_GT((*usage)[0], 0);
  EXPECT_EQ((*usage)[1], 0);

  constexpr int64_t n = 1000;
  std::vector<float> host(n);
  std::iota(host.begin(), host.end(), 0.0f);
  llvm::Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(n * 4);
  ASSERT_TRUE(static_cast<bool>(buffer)) << errorText(buffer.takeError());
  ASSERT_FALSE(static_cast<bool>(buffer->copyFromHost(host.data(), n * 4)));

  LaunchContract contract;
  ParamSlot x;
  x.name = "x";
  x.dims = {"N"};
  x.staticShape = {-1};
  ParamSlot a;
  a.kind = ParamSlot::Kind::Scalar;
  a.name = "a";
  contract.params = {x, a};
  contract.ctaThreads = 256;
  contract.grid[0].terms = {{"N", 256}};
  TensorArgument tensor;
  tensor.address = buffer->devicePointer();
  tensor.shape = {n};
  llvm::Expected<BoundLaunch> bound =
      bindArguments(contract, {tensor, ScalarArgument{2.5}});
  ASSERT_TRUE(static_cast<bool>(bound)) << errorText(bound.takeError());

  llvm::Expected<Stream> stream = Stream::create();
  ASSERT_TRUE(static_cast<bool>(stream)) << errorText(stream.takeError());
  llvm::Expected<Event> start = Event::create(), end = Event::create();
  ASSERT_TRUE(start && end);
  Function::LaunchConfig config;
  std::array<int64_t, 3> grid = bound->getGrid();
  config.grid = {uint32_t(grid[0]), uint32_t(grid[1]), uint32_t(grid[2])};
  config.block = {uint32_t(contract.ctaThreads), 1, 1};
  std::vector<void *> params = bound->params();
  ASSERT_FALSE(static_cast<bool>(start->record(*stream)));
  llvm::Error launched = function->launch(config, params, *stream);
  ASSERT_FALSE(static_cast<bool>(launched)) << errorText(std::move(launched));
  ASSERT_FALSE(static_cast<bool>(end->record(*stream)));
  llvm::Expected<float> ms = Event::elapsedMs(*start, *end);
  ASSERT_TRUE(static_cast<bool>(ms)) << errorText(ms.takeError());
  EXPECT_GE(*ms, 0.0f);
  ASSERT_FALSE(static_cast<bool>(stream->synchronize()));

  std::vector<float> result(n);
  ASSERT_FALSE(static_cast<bool>(buffer->copyToHost(result.data(), n * 4)));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(result[i], 2.5f * host[i]) << "element " << i;

  ASSERT_FALSE(static_cast<bool>(buffer->fill(0xff)));
  uint32_t word = 0;
  ASSERT_FALSE(static_cast<bool>(buffer->copyToHost(&word, 4)));
  EXPECT_EQ(word, 0xffffffffu);
}

/// An upload from pageable memory is in the buffer when copyFromHost
/// returns, for work on any stream: cuMemcpyHtoD alone returns once the
/// data is staged, and a non-blocking stream does not wait for the rest of
/// the DMA (the differential fuzzer's runs on the H200 saw kernels whose
/// outputs the late copy then overwrote).
TEST(CudaDriverTest, UploadIsCompleteForOtherStreams) {
  GET_DRIVER_OR_SKIP(driver);
  (void)driver;
  constexpr size_t words = size_t(64) << 20; // 256 MiB: a long DMA
  std::vector<uint32_t> host(words);
  llvm::Expected<DeviceBuffer> source = DeviceBuffer::allocate(words * 4);
  llvm::Expected<DeviceBuffer> target = DeviceBuffer::allocate(words * 4);
  ASSERT_TRUE(source && target);
  llvm::Expected<Stream> stream = Stream::create();
  ASSERT_TRUE(static_cast<bool>(stream)) << errorText(stream.takeError());
  std::vector<uint32_t> result(words);
  for (uint32_t round = 1; round <= 3; ++round) {
    for (size_t i = 0; i < words; ++i)
      host[i] = uint32_t(i) * 2654435761u + round;
    ASSERT_FALSE(static_cast<bool>(source->fill(0)));
    ASSERT_FALSE(
        static_cast<bool>(source->copyFromHost(host.data(), words * 4)));
    // Read on a non-blocking stream straight away.
    ASSERT_FALSE(static_cast<bool>(
        target->copyFromDevice(source->devicePointer(), words * 4, *stream)));
    ASSERT_FALSE(
        static_cast<bool>(target->copyToHost(result.data(), words * 4)));
    for (size_t i = 0; i < words; i += 4093)
      ASSERT_EQ(result[i], host[i]) << "round " << round << ", word " << i;
    ASSERT_EQ(result.back(), host.back()) << "round " << round;
  }
}

TEST(CudaDriverTest, WorksFromAnotherThread) {
  GET_DRIVER_OR_SKIP(driver);
  (void)driver;
  // The current context is per thread: a worker must find it made current.
  std::string failure;
  uint32_t word = 0;
  std::thread worker([&] {
    llvm::Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(64);
    if (!buffer) {
      failure = errorText(buffer.takeError());
      return;
    }
    if (llvm::Error error = buffer->fill(0x5a))
      failure = errorText(std::move(error));
    else if (llvm::Error error = buffer->copyToHost(&word, 4))
      failure = errorText(std::move(error));
  });
  worker.join();
  EXPECT_EQ(failure, "");
  EXPECT_EQ(word, 0x5a5a5a5au);
}

TEST(CudaDriverTest, ReportsTheJitLog) {
  GET_DRIVER_OR_SKIP(driver);
  (void)driver;
  std::string broken = scalePtx;
  broken.replace(broken.find("mul.f32"), 7, "mul.q32");
  llvm::Expected<Module> module = Module::load(broken);
  ASSERT_FALSE(static_cast<bool>(module));
  std::string message = errorText(module.takeError());
  EXPECT_EQ(message.rfind("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX "
                          "(a PTX JIT compilation failed): ",
                          0),
            0u)
      << message;
  // The log names the bad modifier.
  EXPECT_NE(message.find("'.q32'"), std::string::npos) << message;
}

TEST(CudaDriverTest, ReportsAMissingKernel) {
  GET_DRIVER_OR_SKIP(driver);
  (void)driver;
  llvm::Expected<Module> module = Module::load(scalePtx);
  ASSERT_TRUE(static_cast<bool>(module)) << errorText(module.takeError());
  llvm::Expected<Function> function = module->getFunction("nope");
  ASSERT_FALSE(static_cast<bool>(function));
  EXPECT_EQ(errorText(function.takeError()),
            "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol "
            "not found): kernel 'nope'");
}

TEST(CudaDriverTest, OptsInToDynamicSharedMemory) {
  GET_DRIVER_OR_SKIP(driver);
  llvm::Expected<Module> module = Module::load(scalePtx);
  ASSERT_TRUE(static_cast<bool>(module)) << errorText(module.takeError());
  llvm::Expected<Function> function = module->getFunction("scale");
  ASSERT_TRUE(static_cast<bool>(function)) << errorText(function.takeError());
  llvm::Error allowed =
      function->setMaxDynamicSharedMemory(driver.maxSharedMemoryPerBlock());
  EXPECT_FALSE(static_cast<bool>(allowed)) << errorText(std::move(allowed));
  std::string tooMuch = errorText(function->setMaxDynamicSharedMemory(
      driver.maxSharedMemoryPerBlock() + 1024));
  EXPECT_EQ(
      tooMuch.rfind("cuFuncSetAttribute failed: CUDA_ERROR_INVALID_VALUE", 0),
      0u)
      << tooMuch;
}

} // namespace
