//===- phobos-tensor.cpp - Tensors in cluster storage ---------------------===//
//
//   phobos-tensor create  URI --shape 256x256 [--dtype f32] [--format raw|header]
//                              [--fill zero|random|iota|VALUE] [--seed N]
//   phobos-tensor fill    URI --fill random|iota|VALUE [--seed N]
//   phobos-tensor inspect URI [--values N]
//   phobos-tensor compare URI URI [--tolerance REL [--atol ABS]]
//   phobos-tensor convert SRC DST [--format raw|header]
//   phobos-tensor write-rate URI --shape 8192x8192 --tile 1024x1024
//                              [--writers N] [--method map|write]
//                              [--preallocate]
//
// URI is file:///path or a plain path; a path ending in .npy is a NumPy
// file (for convert and compare). A raw file (no header: the original
// format, f32 row-major) needs --shape (and --dtype when not f32) to be
// read. compare is bit for bit unless --tolerance is given. Exit status: 0
// success (equal), 1 different, 2 a usage or file error.
//
//===----------------------------------------------------------------------===//

#include "Phobos/ClusterRuntime/TensorStorage.h"
#include "Phobos/Runtime/HostTensor.h"
#include "Phobos/Runtime/NpyFile.h"

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <thread>
#include <unistd.h>

using namespace phobos;
using namespace phobos::storage;

ABSL_FLAG(std::string, shape, "",
          "Shape, e.g. 256x64: of a new tensor, or of a raw file (no header)");
ABSL_FLAG(std::string, dtype, "f32",
          "Element type: f32, f16, bf16, f64, i32, i64, bool");
ABSL_FLAG(std::string, format, "",
          "raw (no header; f32 raw is the original format) or header "
          "(default: raw for f32, header otherwise)");
ABSL_FLAG(std::string, fill, "zero",
          "zero, random (uniform in [-1, 1)), iota (0, 1, 2, ...) or a number");
ABSL_FLAG(uint64_t, seed, 0, "Seed of --fill random");
ABSL_FLAG(int64_t, values, 8, "inspect: how many leading values to print");
ABSL_FLAG(std::optional<double>, tolerance, std::nullopt,
          "compare: accept elements whose difference is at most this times "
          "the larger magnitude, plus --atol (default: bit for bit)");
ABSL_FLAG(std::optional<double>, atol, std::nullopt,
          "compare: with --tolerance, an absolute difference always accepted "
          "(for elements near zero)");
ABSL_FLAG(int, threads, 0, "Threads for fills (0: every core)");
ABSL_FLAG(std::string, tile, "",
          "write-rate: the tiles the writers store, e.g. 1024x1024 (the "
          "jobs' output super-tiles)");
ABSL_FLAG(int, writers, 1,
          "write-rate: writer processes, each storing every N-th tile");
ABSL_FLAG(std::string, method, "map",
          "write-rate: how tiles are written, as phobos-pod --store-writes: "
          "map (a shared mapping) or write (pwrite)");
ABSL_FLAG(bool, preallocate, false,
          "write-rate: allocate the file's blocks (fallocate) before the "
          "writers start, instead of leaving it sparse as the scheduler does");

namespace {

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "phobos-tensor: %s\n", message.c_str());
  std::exit(2);
}

void check(const absl::Status &status) {
  if (!status.ok())
    die(std::string(status.message()));
}

template <typename T> T value(absl::StatusOr<T> result) {
  check(result.status());
  return std::move(*result);
}

bool isNpy(const std::string &uri) { return absl::EndsWith(uri, ".npy"); }

ElementType dtypeFlag() {
  std::string text = absl::GetFlag(FLAGS_dtype);
  std::optional<ElementType> element = parseElementType(text);
  if (!element)
    die("--dtype: unknown element type '" + text +
        "' (f32, f16, bf16, f64, i32, i64, bool)");
  return *element;
}

/// What --shape/--dtype say a raw file holds, when --shape is given.
std::optional<std::pair<ElementType, std::vector<int64_t>>> expectedLayout() {
  std::string shape = absl::GetFlag(FLAGS_shape);
  if (shape.empty())
    return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> parsed = parseShape(shape);
  if (!parsed.ok())
    die("--shape: " + std::string(parsed.status().message()));
  return std::make_pair(dtypeFlag(), std::move(*parsed));
}

/// The element type and shape of a tensor `command` makes, from
/// --shape/--dtype, which it needs; the format is the command's choice.
TensorInfo requiredLayout(const std::string &command,
                          const std::string &exampleShape) {
  std::optional<std::pair<ElementType, std::vector<int64_t>>> layout =
      expectedLayout();
  if (!layout)
    die(command + ": give the tensor's --shape (e.g. --shape " +
        exampleShape + ")");
  TensorInfo info;
  info.element = layout->first;
  info.shape = layout->second;
  return info;
}

/// A tensor file mapped read-only.
struct MappedTensor {
  TensorInfo info;
  std::string path;
  const uint8_t *base = nullptr;
  size_t length = 0;
  /// For .npy inputs, the elements in memory.
  HostTensor npy;

  const uint8_t *data() const {
    return base ? base + info.dataOffset
                : static_cast<const uint8_t *>(npy.data());
  }
  ~MappedTensor() {
    if (base)
      ::munmap(const_cast<uint8_t *>(base), length);
  }
};

std::unique_ptr<MappedTensor>
mapTensor(const std::string &uri,
          std::optional<std::pair<ElementType, std::vector<int64_t>>> expected) {
  auto mapped = std::make_unique<MappedTensor>();
  mapped->path = uri;
  if (isNpy(uri)) {
    llvm::Expected<HostTensor> tensor = readNpy(uri);
    if (!tensor)
      die(uri + ": " + llvm::toString(tensor.takeError()));
    mapped->npy = std::move(*tensor);
    mapped->info.element = mapped->npy.getElementType();
    mapped->info.shape.assign(mapped->npy.getShape().begin(),
                              mapped->npy.getShape().end());
    return mapped;
  }
  std::string path = value(pathFromUri(uri));
  mapped->info = value(inspectFile(path, expected));
  mapped->length = static_cast<size_t>(mapped->info.dataOffset +
                                       mapped->info.dataBytes());
  if (mapped->length == 0)
    return mapped;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    die(path + ": cannot open: " + std::strerror(errno));
  void *base = ::mmap(nullptr, mapped->length, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED)
    die(path + ": cannot map: " + std::strerror(errno));
  mapped->base = static_cast<const uint8_t *>(base);
  return mapped;
}

double elementAt(const MappedTensor &tensor, int64_t index) {
  ElementType element = tensor.info.element;
  return isFloat(element)
             ? loadFloat(element, tensor.data(), index)
             : static_cast<double>(loadInt(element, tensor.data(), index));
}

std::string formatValue(double value) { return absl::StrFormat("%.9g", value); }

/// Row-major index -> [i, j, ...].
std::string multiIndex(int64_t index, const std::vector<int64_t> &shape) {
  std::vector<int64_t> coords(shape.size());
  for (size_t axis = shape.size(); axis-- > 0;) {
    coords[axis] = index % shape[axis];
    index /= shape[axis];
  }
  return "[" + absl::StrJoin(coords, ", ") + "]";
}

/// Fills elements [0, count) of `file` with `generator(index)`, in blocks
/// written by several threads.
void fillFile(const TensorFile &file,
              const std::function<double(int64_t)> &generator) {
  const TensorInfo &info = file.info();
  int64_t count = info.numElements();
  unsigned width = byteWidth(info.element);
  constexpr int64_t kBlock = 1 << 22; // elements
  int64_t blocks = (count + kBlock - 1) / kBlock;
  unsigned threads = absl::GetFlag(FLAGS_threads) > 0
                         ? static_cast<unsigned>(absl::GetFlag(FLAGS_threads))
                         : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<int64_t>(threads, std::max<int64_t>(blocks, 1)));
  std::atomic<int64_t> next{0};
  absl::Mutex errorMutex;
  absl::Status firstError;
  auto work = [&] {
    std::vector<uint8_t> buffer(static_cast<size_t>(kBlock) * width);
    for (int64_t block = next++; block < blocks; block = next++) {
      int64_t begin = block * kBlock, end = std::min(count, begin + kBlock);
      for (int64_t i = begin; i < end; ++i) {
        double v = generator(i);
        if (isFloat(info.element))
          storeFloat(info.element, buffer.data(), i - begin, v);
        else
          storeInt(info.element, buffer.data(), i - begin,
                   static_cast<int64_t>(v));
      }
      absl::Status status =
          file.writeBytes(begin * width, (end - begin) * width, buffer.data());
      if (!status.ok()) {
        absl::MutexLock lock(&errorMutex);
        if (firstError.ok())
          firstError = status;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &thread : pool)
    thread.join();
  check(firstError);
}

/// The generator --fill names for elements of type `element`; a constant
/// must be representable (finite where it was written finite, an integer
/// in range for integer types).
std::function<double(int64_t)> generatorFlag(ElementType element) {
  std::string how = absl::GetFlag(FLAGS_fill);
  uint64_t seed = absl::GetFlag(FLAGS_seed);
  if (how == "zero")
    return [](int64_t) { return 0.0; };
  if (how == "random")
    return [seed](int64_t i) { return randomValue(seed, static_cast<uint64_t>(i)); };
  if (how == "iota")
    return [](int64_t i) { return static_cast<double>(i); };
  double constant = 0;
  if (!absl::SimpleAtod(how, &constant))
    die("--fill: expected zero, random, iota or a number, got '" + how + "'");
  std::string outOfRange = "--fill: " + how + " does not fit in " +
                           name(element).str();
  if (isFloat(element)) {
    // 1e999 reads as infinity; only inf and nan spelled out mean it.
    uint64_t stored[1] = {0};
    storeFloat(element, stored, 0, constant);
    if (std::isfinite(constant) != std::isfinite(loadFloat(element, stored, 0)) &&
        !std::isnan(constant))
      die(outOfRange);
    std::string spelled = absl::AsciiStrToLower(how);
    if (!std::isfinite(constant) && !absl::StrContains(spelled, "inf") &&
        !absl::StrContains(spelled, "nan"))
      die(outOfRange);
  } else {
    double low = element == ElementType::Bool ? 0
                 : element == ElementType::I32
                     ? static_cast<double>(std::numeric_limits<int32_t>::min())
                     : -0x1p63;
    double high = element == ElementType::Bool ? 1
                  : element == ElementType::I32
                      ? static_cast<double>(std::numeric_limits<int32_t>::max())
                      : 0x1p63 - 1024;
    if (!(constant >= low && constant <= high) || std::trunc(constant) != constant)
      die(outOfRange);
  }
  return [constant](int64_t) { return constant; };
}

Format formatFlag(ElementType element, size_t rank) {
  std::string format = absl::GetFlag(FLAGS_format);
  if (format.empty())
    return element == ElementType::F32 && rank >= 1 && rank <= 2 ? Format::Raw
                                                                  : Format::Header;
  if (format == "raw")
    return Format::Raw;
  if (format == "header")
    return Format::Header;
  die("--format: expected raw or header, got '" + format + "'");
}

int create(const std::string &uri) {
  TensorInfo info = requiredLayout("create", "256x64");
  info.format = formatFlag(info.element, info.shape.size());
  // The fill is checked before the file exists: a mistake leaves nothing.
  std::function<double(int64_t)> generator = generatorFlag(info.element);
  std::string path = value(pathFromUri(uri));
  TensorFile file = value(TensorFile::create(path, info));
  if (absl::GetFlag(FLAGS_fill) != "zero")
    fillFile(file, generator);
  std::printf("%s: %s, %lld bytes, fill %s\n", uri.c_str(),
              file.info().describe().c_str(),
              static_cast<long long>(file.info().dataOffset +
                                     file.info().dataBytes()),
              absl::GetFlag(FLAGS_fill).c_str());
  return 0;
}

int fill(const std::string &uri) {
  std::string path = value(pathFromUri(uri));
  TensorInfo info = value(inspectFile(path, expectedLayout()));
  TensorFile file = value(TensorFile::open(path, info, /*writable=*/true));
  fillFile(file, generatorFlag(info.element));
  std::printf("%s: %s, fill %s\n", uri.c_str(), info.describe().c_str(),
              absl::GetFlag(FLAGS_fill).c_str());
  return 0;
}

int inspect(const std::string &uri) {
  if (absl::GetFlag(FLAGS_values) < 0)
    die("--values: expected a count of values to print, 0 or more, got " +
        std::to_string(absl::GetFlag(FLAGS_values)));
  std::unique_ptr<MappedTensor> tensor = mapTensor(uri, expectedLayout());
  const TensorInfo &info = tensor->info;
  int64_t count = info.numElements();
  std::printf("%s: %s, %lld bytes of data", uri.c_str(),
              isNpy(uri) ? absl::StrCat(name(info.element).str(), " [",
                                        formatShape(info.shape), "] (npy)")
                               .c_str()
                         : info.describe().c_str(),
              static_cast<long long>(info.dataBytes()));
  if (info.dataOffset)
    std::printf(" after a %lld-byte header", static_cast<long long>(info.dataOffset));
  std::printf("\nchecksum  xxh3:%016llx\n",
              static_cast<unsigned long long>(
                  checksum(tensor->data(), static_cast<size_t>(info.dataBytes()))));
  double low = std::numeric_limits<double>::infinity(), high = -low, sum = 0;
  int64_t nans = 0, infinities = 0;
  for (int64_t i = 0; i < count; ++i) {
    double v = elementAt(*tensor, i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    if (std::isinf(v))
      ++infinities;
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
  }
  if (count > nans)
    std::printf("values    min %s  max %s  mean %s  (%lld NaN, %lld inf)\n",
                formatValue(low).c_str(), formatValue(high).c_str(),
                formatValue(sum / static_cast<double>(count - nans)).c_str(),
                static_cast<long long>(nans), static_cast<long long>(infinities));
  else
    std::printf("values    all %lld NaN\n", static_cast<long long>(nans));
  int64_t shown = std::min<int64_t>(count, std::max<int64_t>(0, absl::GetFlag(FLAGS_values)));
  std::string first;
  for (int64_t i = 0; i < shown; ++i)
    absl::StrAppend(&first, i ? ", " : "", formatValue(elementAt(*tensor, i)));
  std::printf("first     [%s%s]\n", first.c_str(), shown < count ? ", ..." : "");
  return 0;
}

int compare(const std::string &left, const std::string &right) {
  // Without --tolerance, bit for bit; a tolerance is a relative error, 0
  // or more, and --atol only widens one.
  std::optional<double> givenTolerance = absl::GetFlag(FLAGS_tolerance);
  std::optional<double> givenAtol = absl::GetFlag(FLAGS_atol);
  if (givenTolerance && !(*givenTolerance >= 0))
    die("--tolerance: expected a relative error, 0 or more, got " +
        formatValue(*givenTolerance));
  if (givenAtol && !(*givenAtol >= 0))
    die("--atol: expected an absolute error, 0 or more, got " +
        formatValue(*givenAtol));
  if (givenAtol && !givenTolerance)
    die("--atol widens a --tolerance: give both");
  std::optional<std::pair<ElementType, std::vector<int64_t>>> expected =
      expectedLayout();
  // A header (or .npy) on one side tells how to read a raw file on the other.
  std::unique_ptr<MappedTensor> a, b;
  auto selfDescribing = [&](const std::string &uri) {
    if (isNpy(uri))
      return true;
    absl::StatusOr<TensorInfo> info = inspectFile(value(pathFromUri(uri)));
    return info.ok();
  };
  if (!expected && !selfDescribing(left) && selfDescribing(right)) {
    b = mapTensor(right, std::nullopt);
    a = mapTensor(left, std::make_pair(b->info.element, b->info.shape));
  } else {
    a = mapTensor(left, expected);
    b = mapTensor(right, expected ? expected
                                  : std::make_optional(std::make_pair(
                                        a->info.element, a->info.shape)));
  }
  if (a->info.element != b->info.element || a->info.shape != b->info.shape) {
    std::printf("different: %s holds %s [%s], %s holds %s [%s]\n", left.c_str(),
                name(a->info.element).str().c_str(),
                formatShape(a->info.shape).c_str(), right.c_str(),
                name(b->info.element).str().c_str(),
                formatShape(b->info.shape).c_str());
    return 1;
  }
  int64_t count = a->info.numElements();
  size_t bytes = static_cast<size_t>(a->info.dataBytes());
  if (std::memcmp(a->data(), b->data(), bytes) == 0) {
    std::printf("identical: %lld elements of %s [%s], checksum xxh3:%016llx\n",
                static_cast<long long>(count), name(a->info.element).str().c_str(),
                formatShape(a->info.shape).c_str(),
                static_cast<unsigned long long>(checksum(a->data(), bytes)));
    return 0;
  }
  unsigned width = byteWidth(a->info.element);
  int64_t differing = 0, first = -1, worst = -1, rejected = 0;
  double worstRelative = 0, worstAbsolute = 0;
  double tolerance = givenTolerance.value_or(-1);
  double atol = givenAtol.value_or(0);
  for (int64_t i = 0; i < count; ++i) {
    if (std::memcmp(a->data() + i * width, b->data() + i * width, width) == 0)
      continue;
    ++differing;
    if (first < 0)
      first = i;
    double x = elementAt(*a, i), y = elementAt(*b, i);
    double absolute = std::fabs(x - y);
    double scale = std::max({std::fabs(x), std::fabs(y), 1e-30});
    double relative = std::isnan(absolute) ? std::numeric_limits<double>::infinity()
                                           : absolute / scale;
    bool within = absolute <= atol + std::max(tolerance, 0.0) * scale;
    if (!std::isfinite(x) || !std::isfinite(y)) {
      // An infinity matches only itself and NaN only NaN (whatever its
      // payload), as every check of the project compares: the scale of an
      // infinity would make its error, and any tolerance, infinite.
      within = (std::isnan(x) && std::isnan(y)) || x == y;
      absolute = relative = within ? 0 : std::numeric_limits<double>::infinity();
    }
    if (worst < 0 || relative > worstRelative) {
      worstRelative = relative;
      worst = i;
    }
    if (!std::isnan(absolute))
      worstAbsolute = std::max(worstAbsolute, absolute);
    if (!within)
      ++rejected;
  }
  bool accepted = tolerance >= 0 && rejected == 0;
  std::printf("%s: %lld of %lld elements differ; max abs err %s, max rel err %s"
              "%s\n",
              accepted ? "close" : "different", static_cast<long long>(differing),
              static_cast<long long>(count), formatValue(worstAbsolute).c_str(),
              formatValue(worstRelative).c_str(),
              tolerance >= 0
                  ? absl::StrCat(" (tolerance ", formatValue(tolerance),
                                 atol > 0 ? absl::StrCat(" + ", formatValue(atol))
                                          : "",
                                 ": ", rejected, " outside)")
                        .c_str()
                  : "");
  std::printf("  first at %s: %s vs %s\n",
              multiIndex(first, a->info.shape).c_str(),
              formatValue(elementAt(*a, first)).c_str(),
              formatValue(elementAt(*b, first)).c_str());
  std::printf("  worst at %s: %s vs %s\n",
              multiIndex(worst, a->info.shape).c_str(),
              formatValue(elementAt(*a, worst)).c_str(),
              formatValue(elementAt(*b, worst)).c_str());
  return accepted ? 0 : 1;
}

int convert(const std::string &source, const std::string &target) {
  std::unique_ptr<MappedTensor> input = mapTensor(source, expectedLayout());
  const TensorInfo &info = input->info;
  if (isNpy(target)) {
    HostTensor tensor(info.element, info.shape);
    std::memcpy(tensor.data(), input->data(), static_cast<size_t>(info.dataBytes()));
    if (llvm::Error error = tensor.writeNpy(target))
      die(llvm::toString(std::move(error)));
    std::printf("%s -> %s: %s [%s]\n", source.c_str(), target.c_str(),
                name(info.element).str().c_str(), formatShape(info.shape).c_str());
    return 0;
  }
  TensorInfo layout;
  layout.element = info.element;
  layout.shape = info.shape;
  layout.format = formatFlag(info.element, info.shape.size());
  TensorFile file = value(TensorFile::create(value(pathFromUri(target)), layout));
  check(file.writeBytes(0, info.dataBytes(), input->data()));
  std::printf("%s -> %s: %s\n", source.c_str(), target.c_str(),
              file.info().describe().c_str());
  return 0;
}

} // namespace

/// Seconds on a clock every process of the machine shares.
static double monotonicSeconds() {
  struct timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
}

/// write-rate: how fast N processes store tiles into one new file, by the
/// pods' own write path (TensorFile::writeRegion with --store-writes), as a
/// job's pods store their output super-tiles: the storage's roofline for
/// the cluster's outputs. The file must not exist; it is removed after.
static int writeRate(const std::string &uri) {
  TensorInfo info = requiredLayout("write-rate", "8192x8192");
  info.format = Format::Raw;
  std::string tileText = absl::GetFlag(FLAGS_tile);
  if (tileText.empty())
    die("write-rate: give the --tile to store (e.g. --tile 1024x1024)");
  absl::StatusOr<std::vector<int64_t>> tile = parseShape(tileText);
  if (!tile.ok())
    die("--tile: " + std::string(tile.status().message()));
  if (tile->size() != info.shape.size())
    die(absl::StrCat("--tile: ", tileText, " has ", tile->size(),
                     " axes, the tensor ", info.shape.size()));
  for (size_t axis = 0; axis < tile->size(); ++axis)
    if ((*tile)[axis] > info.shape[axis])
      die(absl::StrCat("--tile: ", tileText, " is larger than the tensor's ",
                       formatShape(info.shape)));
  int writers = absl::GetFlag(FLAGS_writers);
  if (writers < 1 || writers > 256)
    die(absl::StrCat("--writers: expected 1 to 256, got ", writers));
  std::string methodText = absl::GetFlag(FLAGS_method);
  TensorFile::WriteMethod method;
  if (methodText == "map")
    method = TensorFile::WriteMethod::Mapping;
  else if (methodText == "write")
    method = TensorFile::WriteMethod::Syscall;
  else
    die("--method: expected map or write, got '" + methodText + "'");
  std::string path = value(pathFromUri(uri));
  // The tiles, row-major over the tile grid (edge tiles cut to fit).
  std::vector<std::vector<int64_t>> offsets;
  {
    std::vector<int64_t> at(info.shape.size(), 0);
    while (true) {
      offsets.push_back(at);
      size_t axis = at.size();
      while (axis > 0) {
        --axis;
        at[axis] += (*tile)[axis];
        if (at[axis] < info.shape[axis])
          break;
        at[axis] = 0;
        if (axis == 0) {
          axis = SIZE_MAX;
          break;
        }
      }
      if (axis == SIZE_MAX || at.empty())
        break;
    }
  }
  int64_t tileBytes = byteWidth(info.element);
  for (int64_t extent : *tile)
    tileBytes *= extent;
  struct stat existing;
  if (::lstat(path.c_str(), &existing) == 0)
    die("write-rate: '" + path +
        "' exists: give a new file (write-rate makes it and removes it after)");
  double created = monotonicSeconds();
  TensorFile file = value(TensorFile::create(path, info, /*exclusive=*/true));
  auto removeAndDie = [&](const std::string &message) {
    ::unlink(path.c_str());
    die(message);
  };
  if (absl::GetFlag(FLAGS_preallocate)) {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    int error = fd < 0 ? errno
                       : ::posix_fallocate(fd, 0, static_cast<off_t>(info.dataBytes()));
    if (fd >= 0)
      ::close(fd);
    if (error != 0)
      removeAndDie(absl::StrCat(path, ": cannot preallocate ",
                                info.dataBytes(), " bytes: ", std::strerror(error)));
  }
  double prepared = monotonicSeconds();
  // Each writer opens the file and makes its tile, says it is ready, and
  // waits on a pipe until all are; then they store their shares (tile i
  // goes to writer i mod N, as a plan deals units) and the clock runs.
  int start[2], ready[2];
  if (::pipe(start) != 0 || ::pipe(ready) != 0)
    removeAndDie("cannot make a pipe");
  std::vector<pid_t> children;
  for (int writer = 0; writer < writers; ++writer) {
    pid_t pid = ::fork();
    if (pid < 0)
      removeAndDie("cannot start a writer process");
    if (pid == 0) {
      ::close(start[1]);
      ::close(ready[0]);
      absl::StatusOr<TensorFile> mine =
          TensorFile::open(path, info, /*writable=*/true, method);
      if (!mine.ok()) {
        std::fprintf(stderr, "phobos-tensor: %s\n",
                     std::string(mine.status().message()).c_str());
        ::_exit(2);
      }
      std::vector<uint8_t> data(static_cast<size_t>(tileBytes));
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<uint8_t>(i * 131 + writer);
      char go = 1;
      if (::write(ready[1], &go, 1) != 1 || ::read(start[0], &go, 1) < 0)
        ::_exit(3);
      for (size_t i = writer; i < offsets.size(); i += writers) {
        std::vector<int64_t> extents(*tile);
        for (size_t axis = 0; axis < extents.size(); ++axis)
          extents[axis] = std::min(extents[axis], info.shape[axis] - offsets[i][axis]);
        if (absl::Status status = mine->writeRegion(offsets[i], extents, data.data());
            !status.ok()) {
          std::fprintf(stderr, "phobos-tensor: %s\n",
                       std::string(status.message()).c_str());
          ::_exit(2);
        }
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(ready[1]);
  // Every writer is ready (or gone: the read ends early, and its status
  // says why).
  for (int count = 0; count < writers; ++count) {
    char got;
    if (::read(ready[0], &got, 1) != 1)
      break;
  }
  ::close(ready[0]);
  double began = monotonicSeconds();
  ::close(start[1]);
  bool ok = true;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  double wrote = monotonicSeconds();
  absl::Status synced = file.sync();
  double flushed = monotonicSeconds();
  ::unlink(path.c_str());
  if (!ok)
    die("write-rate: a writer failed (see above)");
  check(synced);
  double bytes = static_cast<double>(info.dataBytes());
  std::printf("write-rate: %d writer%s (%s%s) stored %.1f MiB of %s in %zu "
              "tiles of %s: %.3f s, %.2f GB/s; with the fsync after (%.3f s), "
              "%.2f GB/s; creating the file took %.3f s\n",
              writers, writers == 1 ? "" : "s", methodText.c_str(),
              absl::GetFlag(FLAGS_preallocate) ? ", preallocated" : "",
              bytes / (1 << 20), info.describe().c_str(), offsets.size(),
              formatShape(*tile).c_str(),
              wrote - began, bytes / (wrote - began) / 1e9, flushed - wrote,
              bytes / (flushed - began) / 1e9, prepared - created);
  return 0;
}

int main(int argc, char **argv) {
  absl::SetProgramUsageMessage(
      "tensors in cluster storage.\n"
      "  phobos-tensor create  URI --shape AxB [--dtype f32] [--format raw|header]\n"
      "                            [--fill zero|random|iota|VALUE] [--seed N]\n"
      "  phobos-tensor fill    URI --fill random|iota|VALUE [--seed N]\n"
      "  phobos-tensor inspect URI [--values N]\n"
      "  phobos-tensor compare URI URI [--tolerance REL [--atol ABS]]\n"
      "  phobos-tensor convert SRC DST [--format raw|header]\n"
      "  phobos-tensor write-rate URI --shape AxB --tile AxB [--writers N]\n"
      "                            [--method map|write] [--preallocate]\n"
      "URI is file:///path or a path; *.npy is a NumPy file. A raw file (no "
      "header) needs --shape (and --dtype unless f32).");
  std::vector<char *> args = absl::ParseCommandLine(argc, argv);
  if (args.size() < 2)
    die("give a command: create, fill, inspect, compare, convert or "
        "write-rate (--help)");
  std::string command = args[1];
  auto operands = [&](size_t count) {
    if (args.size() != count + 2)
      die(command + ": expected " + std::to_string(count) + " tensor" +
          (count == 1 ? "" : "s") + ", got " + std::to_string(args.size() - 2));
  };
  if (command == "create") {
    operands(1);
    return create(args[2]);
  }
  if (command == "fill") {
    operands(1);
    return fill(args[2]);
  }
  if (command == "inspect") {
    operands(1);
    return inspect(args[2]);
  }
  if (command == "compare") {
    operands(2);
    return compare(args[2], args[3]);
  }
  if (command == "convert") {
    operands(2);
    return convert(args[2], args[3]);
  }
  if (command == "write-rate") {
    operands(1);
    return writeRate(args[2]);
  }
  die("unknown command '" + command +
      "': expected create, fill, inspect, compare, convert or write-rate");
}
