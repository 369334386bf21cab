//===- TensorStorage.cpp - Tensors in file:// storage ---------------------===//

#include "Phobos/ClusterRuntime/TensorStorage.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <limits>
#include <mutex>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

using namespace phobos;
using namespace phobos::storage;

static constexpr absl::string_view kMagic = "PHOBOS-TENSOR ";
static constexpr int64_t kHeaderAlign = 64;
/// A header longer than this is damage, not a header.
static constexpr int64_t kHeaderLimit = 4096;

int64_t TensorInfo::numElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

int64_t TensorInfo::dataBytes() const {
  return numElements() * byteWidth(element);
}

std::string TensorInfo::describe() const {
  return absl::StrCat(name(element).str(), " [", formatShape(shape), "] (",
                      format == Format::Raw ? "raw" : "header", ")");
}

absl::StatusOr<std::string> phobos::storage::pathFromUri(absl::string_view uri) {
  absl::string_view path = uri;
  if (absl::ConsumePrefix(&path, "file://")) {
    if (path.empty() || path.front() != '/')
      return absl::InvalidArgumentError(absl::StrCat(
          "'", uri, "': a file:// URI names an absolute path (file:///tmp/a.tensor)"));
    return std::string(path);
  }
  if (uri.find("://") != absl::string_view::npos)
    return absl::InvalidArgumentError(
        absl::StrCat("'", uri, "': storage is file:// only"));
  if (uri.empty())
    return absl::InvalidArgumentError("an empty path names no tensor");
  return std::string(uri);
}

std::string phobos::storage::formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  return absl::StrJoin(shape, "x");
}

absl::StatusOr<std::vector<int64_t>>
phobos::storage::parseShape(absl::string_view text) {
  std::vector<int64_t> shape;
  if (text == "scalar")
    return shape;
  // Elements of up to 8 bytes must still count in an int64_t of bytes.
  constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max() / 8;
  int64_t elements = 1;
  for (absl::string_view part : absl::StrSplit(text, absl::ByAnyChar("x,"))) {
    int64_t extent = 0;
    if (!absl::SimpleAtoi(part, &extent) || extent <= 0)
      return absl::InvalidArgumentError(absl::StrCat(
          "'", text, "' is not a shape: expected positive extents like 256x64"));
    if (extent > kMaxElements / elements)
      return absl::InvalidArgumentError(absl::StrCat(
          "'", text, "' is too large: 2^60 elements or more"));
    elements *= extent;
    shape.push_back(extent);
  }
  return shape;
}

std::string phobos::storage::headerText(ElementType element,
                                        const std::vector<int64_t> &shape) {
  std::string line = absl::StrCat(kMagic, "v1 dtype=", name(element).str(),
                                  " shape=", absl::StrJoin(shape, ","));
  int64_t length = static_cast<int64_t>(line.size()) + 1;
  length = (length + kHeaderAlign - 1) / kHeaderAlign * kHeaderAlign;
  line.resize(length - 1, ' ');
  line += '\n';
  return line;
}

namespace {

std::string errnoText(int error) { return std::strerror(error); }

absl::Status ioError(int error, const std::string &path,
                     absl::string_view what) {
  std::string message = absl::StrCat(path, ": ", what, ": ", errnoText(error));
  if (error == ENOENT)
    return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM)
    return absl::PermissionDeniedError(message);
  return absl::UnavailableError(message);
}

/// Reads up to `bytes` at `offset`; returns how many were read (fewer at
/// the end of the file).
absl::StatusOr<int64_t> preadAll(int fd, const std::string &path, void *out,
                                 int64_t bytes, int64_t offset) {
  auto *cursor = static_cast<char *>(out);
  int64_t done = 0;
  while (done < bytes) {
    ssize_t got = ::pread(fd, cursor + done,
                          static_cast<size_t>(std::min<int64_t>(bytes - done, 1 << 30)),
                          static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return ioError(errno, path, absl::StrCat("read at byte ", offset + done));
    }
    if (got == 0)
      break;
    done += got;
  }
  return done;
}

absl::Status pwriteAll(int fd, const std::string &path, const void *data,
                       int64_t bytes, int64_t offset) {
  const auto *cursor = static_cast<const char *>(data);
  int64_t done = 0;
  while (done < bytes) {
    ssize_t put = ::pwrite(fd, cursor + done,
                           static_cast<size_t>(std::min<int64_t>(bytes - done, 1 << 30)),
                           static_cast<off_t>(offset + done));
    if (put < 0) {
      if (errno == EINTR)
        continue;
      return ioError(errno, path, absl::StrCat("write at byte ", offset + done));
    }
    done += put;
  }
  return absl::OkStatus();
}

/// Parses a header line (without its newline).
absl::StatusOr<TensorInfo> parseHeader(const std::string &path,
                                       absl::string_view line) {
  auto damaged = [&](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat(path, ": damaged tensor header (", why, "): '", line, "'"));
  };
  std::vector<absl::string_view> words =
      absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (words.size() != 4 || words[0] != "PHOBOS-TENSOR")
    return damaged("expected PHOBOS-TENSOR v1 dtype=T shape=A,B");
  if (words[1] != "v1")
    return absl::UnimplementedError(absl::StrCat(
        path, ": tensor header version '", words[1],
        "' is newer than this Phobos reads (v1)"));
  absl::string_view dtype = words[2], shapeText = words[3];
  if (!absl::ConsumePrefix(&dtype, "dtype="))
    return damaged("no dtype=");
  if (!absl::ConsumePrefix(&shapeText, "shape="))
    return damaged("no shape=");
  TensorInfo info;
  info.format = Format::Header;
  std::optional<ElementType> element = parseElementType(llvm::StringRef(dtype.data(), dtype.size()));
  if (!element)
    return damaged(absl::StrCat("unknown dtype '", dtype, "'"));
  info.element = *element;
  if (!shapeText.empty()) {
    absl::StatusOr<std::vector<int64_t>> shape = parseShape(shapeText);
    if (!shape.ok())
      return damaged(shape.status().message());
    info.shape = std::move(*shape);
  }
  return info;
}

} // namespace

absl::StatusOr<TensorInfo> phobos::storage::inspectFile(
    const std::string &path,
    std::optional<std::pair<ElementType, std::vector<int64_t>>> expected) {
  struct stat status;
  if (::stat(path.c_str(), &status) != 0)
    return errno == ENOENT
               ? absl::NotFoundError(absl::StrCat(path, ": no such file"))
               : ioError(errno, path, "cannot stat");
  if (!S_ISREG(status.st_mode))
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a regular file"));
  int64_t size = status.st_size;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ioError(errno, path, "cannot open");
  std::string head(static_cast<size_t>(std::min(size, kHeaderLimit)), '\0');
  absl::StatusOr<int64_t> got = preadAll(fd, path, head.data(), head.size(), 0);
  ::close(fd);
  if (!got.ok())
    return got.status();
  head.resize(static_cast<size_t>(*got));

  TensorInfo info;
  if (absl::string_view(head).substr(0, kMagic.size()) == kMagic) {
    size_t newline = head.find('\n');
    if (newline == std::string::npos)
      return absl::DataLossError(absl::StrCat(
          path, ": damaged tensor header (no end of line in its first ",
          kHeaderLimit, " bytes)"));
    absl::StatusOr<TensorInfo> parsed =
        parseHeader(path, absl::string_view(head).substr(0, newline));
    if (!parsed.ok())
      return parsed.status();
    info = std::move(*parsed);
    info.dataOffset = static_cast<int64_t>(newline) + 1;
    if (info.dataOffset % kHeaderAlign != 0)
      return absl::DataLossError(absl::StrCat(
          path, ": damaged tensor header (", info.dataOffset,
          " bytes long, not a multiple of ", kHeaderAlign, ")"));
    if (expected && (expected->first != info.element ||
                     expected->second != info.shape))
      return absl::FailedPreconditionError(absl::StrCat(
          path, " holds ", info.describe(), ", but ",
          name(expected->first).str(), " [", formatShape(expected->second),
          "] was expected"));
  } else {
    if (!expected)
      return absl::InvalidArgumentError(absl::StrCat(
          path, " has no tensor header (a raw file): give its element type "
                "and shape"));
    info.format = Format::Raw;
    info.element = expected->first;
    info.shape = expected->second;
  }
  int64_t need = info.dataOffset + info.dataBytes();
  if (size < need)
    return absl::OutOfRangeError(absl::StrCat(
        path, " holds ", size, " bytes, but ", info.describe(), " needs ",
        need, ": the file is truncated or the shape is wrong"));
  if (size > need)
    return absl::OutOfRangeError(absl::StrCat(
        path, " holds ", size, " bytes, more than the ", need, " that ",
        info.describe(), " needs: is the shape or element type wrong?"));
  return info;
}

//===----------------------------------------------------------------------===//
// TensorFile
//===----------------------------------------------------------------------===//

TensorFile::TensorFile(TensorFile &&other) noexcept
    : fd(other.fd), method(other.method), filePath(std::move(other.filePath)),
      layout(std::move(other.layout)) {
  other.fd = -1;
}

TensorFile &TensorFile::operator=(TensorFile &&other) noexcept {
  if (this != &other) {
    if (fd >= 0)
      ::close(fd);
    fd = other.fd;
    other.fd = -1;
    method = other.method;
    filePath = std::move(other.filePath);
    layout = std::move(other.layout);
  }
  return *this;
}

TensorFile::~TensorFile() {
  if (fd >= 0)
    ::close(fd);
}

/// Whether `fd` lies on a file system whose pages every process of this
/// machine shares and that writes a mapping's pages back itself: tmpfs,
/// ramfs and the local disk file systems.
static bool isLocalFileSystem(int fd) {
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0)
    return false;
  switch (static_cast<uint64_t>(fs.f_type)) {
  case 0x01021994: // tmpfs
  case 0x858458f6: // ramfs
  case 0xef53:     // ext2, ext3, ext4
  case 0x58465342: // XFS
  case 0x9123683e: // btrfs
    return true;
  default:
    return false;
  }
}

absl::StatusOr<TensorFile> TensorFile::open(const std::string &path,
                                            const TensorInfo &info,
                                            bool writable,
                                            WriteMethod method) {
  // O_NONBLOCK: opening a FIFO would wait for a writer; it is refused below.
  int fd = ::open(path.c_str(),
                  (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return ioError(errno, path, "cannot open");
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  TensorFile file;
  file.fd = fd;
  file.filePath = path;
  file.layout = info;
  if (method == WriteMethod::Auto)
    method = writable && isLocalFileSystem(fd) ? WriteMethod::Mapping
                                               : WriteMethod::Syscall;
  file.method = method;
  return file;
}

absl::StatusOr<TensorFile> TensorFile::create(const std::string &path,
                                              const TensorInfo &info,
                                              bool exclusive) {
  int flags = O_RDWR | O_CREAT | O_CLOEXEC |
              (exclusive ? O_EXCL | O_NOFOLLOW : O_TRUNC);
  // A file this call makes is removed again if it cannot be completed
  // (a size beyond the file system's, a full disk): nothing half-made is
  // left behind.
  struct stat before;
  bool isNew = exclusive || ::lstat(path.c_str(), &before) != 0;
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0)
    return ioError(errno, path, "cannot create");
  TensorFile file;
  file.fd = fd;
  file.filePath = path;
  file.layout = info;
  auto fail = [&](absl::Status status) {
    if (isNew)
      ::unlink(path.c_str());
    return status;
  };
  if (info.format == Format::Header) {
    std::string header = headerText(info.element, info.shape);
    file.layout.dataOffset = static_cast<int64_t>(header.size());
    if (absl::Status status =
            pwriteAll(fd, path, header.data(), header.size(), 0);
        !status.ok())
      return fail(status);
  } else {
    file.layout.dataOffset = 0;
  }
  // The elements start as zeros (a sparse file where the file system
  // allows it).
  if (::ftruncate(fd, static_cast<off_t>(file.layout.dataOffset +
                                         info.dataBytes())) != 0)
    return fail(ioError(errno, path, "cannot size"));
  return file;
}

template <typename Visit>
absl::Status TensorFile::forEachRun(const std::vector<int64_t> &offsets,
                                    const std::vector<int64_t> &shape,
                                    Visit visit) const {
  const std::vector<int64_t> &full = layout.shape;
  size_t rank = full.size();
  if (offsets.size() != rank || shape.size() != rank)
    return absl::InvalidArgumentError(absl::StrCat(
        filePath, ": a region of rank ", shape.size(), " in a tensor of rank ",
        rank));
  for (size_t axis = 0; axis < rank; ++axis)
    if (offsets[axis] < 0 || shape[axis] < 0 ||
        offsets[axis] + shape[axis] > full[axis])
      return absl::OutOfRangeError(absl::StrCat(
          filePath, ": the region at [", absl::StrJoin(offsets, ","),
          "] of extents ", formatShape(shape), " leaves the tensor's ",
          formatShape(full)));
  int64_t width = byteWidth(layout.element);
  if (rank == 0)
    return visit(layout.dataOffset, 0, width);
  // The innermost axes the region covers whole, plus the one outside them,
  // form one contiguous run: axes [inner, rank).
  size_t inner = rank - 1;
  while (inner > 0 && shape[inner] == full[inner])
    --inner;
  int64_t runElements = 1;
  for (size_t axis = inner; axis < rank; ++axis)
    runElements *= shape[axis];
  std::vector<int64_t> strides(rank, 1);
  for (size_t axis = rank - 1; axis > 0; --axis)
    strides[axis - 1] = strides[axis] * full[axis];
  // A box with an empty axis has no runs, whatever its other extents.
  for (int64_t extent : shape)
    if (extent == 0)
      return absl::OkStatus();
  // Odometer over the axes outside the run.
  std::vector<int64_t> index(inner, 0);
  int64_t regionOffset = 0;
  while (true) {
    int64_t element = 0;
    for (size_t axis = 0; axis < rank; ++axis)
      element += (offsets[axis] + (axis < inner ? index[axis] : 0)) *
                 strides[axis];
    if (absl::Status status = visit(layout.dataOffset + element * width,
                                    regionOffset * width, runElements * width);
        !status.ok())
      return status;
    regionOffset += runElements;
    size_t axis = inner;
    while (axis > 0) {
      --axis;
      if (++index[axis] < shape[axis])
        break;
      index[axis] = 0;
      if (axis == 0)
        return absl::OkStatus();
    }
    if (inner == 0)
      return absl::OkStatus();
  }
}

absl::Status TensorFile::cutShort(int64_t bytes, int64_t offset) const {
  struct stat status;
  int64_t size = ::fstat(fd, &status) == 0 ? status.st_size : -1;
  return absl::OutOfRangeError(absl::StrCat(
      filePath, ": the file ends at byte ", size, ", before the ", bytes,
      " bytes at byte ", offset, ": it was cut short"));
}

absl::Status TensorFile::readRegion(const std::vector<int64_t> &offsets,
                                    const std::vector<int64_t> &shape,
                                    void *out) const {
  auto *bytes = static_cast<char *>(out);
  return forEachRun(offsets, shape,
                    [&](int64_t fileOffset, int64_t regionOffset,
                        int64_t count) -> absl::Status {
                      absl::StatusOr<int64_t> got = preadAll(
                          fd, filePath, bytes + regionOffset, count, fileOffset);
                      if (!got.ok())
                        return got.status();
                      if (*got != count)
                        return cutShort(count, fileOffset);
                      return absl::OkStatus();
                    });
}

absl::Status TensorFile::writeRegion(const std::vector<int64_t> &offsets,
                                     const std::vector<int64_t> &shape,
                                     const void *data) const {
  const auto *bytes = static_cast<const char *>(data);
  if (method == WriteMethod::Mapping)
    return writeRegionMapped(offsets, shape, bytes);
  return forEachRun(offsets, shape,
                    [&](int64_t fileOffset, int64_t regionOffset,
                        int64_t count) {
                      return pwriteAll(fd, filePath, bytes + regionOffset,
                                       count, fileOffset);
                    });
}

//===----------------------------------------------------------------------===//
// Copies through a mapping, with SIGBUS turned into an error
//===----------------------------------------------------------------------===//

namespace {
/// The copy this thread is in, if any: where SIGBUS returns to. Volatile,
/// with signal fences around the copy: the compiler must not drop or move
/// the stores a signal handler reads.
thread_local sigjmp_buf *volatile busReturn = nullptr;
/// The mapped bytes of that copy: a SIGBUS elsewhere (the source data, or
/// one sent with kill) is not a file system's.
thread_local const char *volatile busBegin = nullptr;
thread_local const char *volatile busEnd = nullptr;
struct sigaction previousBusAction;

void onBus(int signal, siginfo_t *info, void *context) {
  sigjmp_buf *jump = busReturn;
  const char *address = static_cast<const char *>(info ? info->si_addr : nullptr);
  if (jump && info && info->si_code != SI_USER && address >= busBegin &&
      address < busEnd) {
    busReturn = nullptr;
    siglongjmp(*jump, 1);
  }
  // Not one of our copies: what was installed before decides.
  if ((previousBusAction.sa_flags & SA_SIGINFO) && previousBusAction.sa_sigaction) {
    previousBusAction.sa_sigaction(signal, info, context);
    return;
  }
  if (!(previousBusAction.sa_flags & SA_SIGINFO) &&
      previousBusAction.sa_handler != SIG_DFL &&
      previousBusAction.sa_handler != SIG_IGN) {
    previousBusAction.sa_handler(signal);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);
  ::raise(SIGBUS);
}

void installBusHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    // What was there first, then ours: a SIGBUS between the two calls goes
    // to the old handler, not to a half-read copy of it.
    ::sigaction(SIGBUS, nullptr, &previousBusAction);
    struct sigaction action {};
    action.sa_sigaction = onBus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, nullptr);
  });
}
} // namespace

bool phobos::storage::copyIntoMapping(char *base, const char *data,
                                      const std::vector<MappedRun> &runs) {
  installBusHandler();
  // Nothing here has a destructor: the jump back skips only this frame.
  sigjmp_buf jump;
  if (sigsetjmp(jump, /*savemask=*/1) != 0)
    return false;
  int64_t low = std::numeric_limits<int64_t>::max(), high = 0;
  for (const MappedRun &run : runs) {
    low = std::min(low, run.fileOffset);
    high = std::max(high, run.fileOffset + run.bytes);
  }
  busBegin = base + low;
  busEnd = base + high;
  busReturn = &jump;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  for (const MappedRun &run : runs)
    std::memcpy(base + run.fileOffset, data + run.dataOffset,
                static_cast<size_t>(run.bytes));
  std::atomic_signal_fence(std::memory_order_seq_cst);
  busReturn = nullptr;
  return true;
}

absl::Status TensorFile::writeRegionMapped(const std::vector<int64_t> &offsets,
                                           const std::vector<int64_t> &shape,
                                           const char *data) const {
  // The runs, and the bytes they span: first run to the end of the last.
  std::vector<MappedRun> runs;
  int64_t first = std::numeric_limits<int64_t>::max(), end = 0;
  if (absl::Status status = forEachRun(
          offsets, shape,
          [&](int64_t fileOffset, int64_t regionOffset, int64_t count) {
            runs.push_back({fileOffset, regionOffset, count});
            first = std::min(first, fileOffset);
            end = std::max(end, fileOffset + count);
            return absl::OkStatus();
          });
      !status.ok())
    return status;
  if (end <= first)
    return absl::OkStatus();
  // A mapping past the end of the file faults (SIGBUS) when touched: a file
  // cut short is an error before anything is written.
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return ioError(errno, filePath, "cannot read the size");
  if (info.st_size < end)
    return absl::OutOfRangeError(absl::StrCat(
        filePath, ": the file ends at byte ", info.st_size, ", before the ",
        end - first, " bytes at byte ", first, ": it was cut short"));
  static const int64_t page = ::sysconf(_SC_PAGESIZE);
  int64_t start = first / page * page;
  size_t length = static_cast<size_t>(end - start);
  void *mapped = ::mmap(nullptr, length, PROT_WRITE, MAP_SHARED, fd,
                        static_cast<off_t>(start));
  if (mapped == MAP_FAILED) {
    // A file system that cannot map (a FUSE file, say) still writes.
    return forEachRun(offsets, shape,
                      [&](int64_t fileOffset, int64_t regionOffset,
                          int64_t count) {
                        return pwriteAll(fd, filePath, data + regionOffset,
                                         count, fileOffset);
                      });
  }
  bool copied =
      copyIntoMapping(static_cast<char *>(mapped) - start, data, runs);
  ::munmap(mapped, length);
  if (!copied)
    return absl::ResourceExhaustedError(absl::StrCat(
        filePath, ": writing ", end - first, " bytes at byte ", first,
        " through a mapping failed (SIGBUS): the file system is full, or the "
        "file was cut short while it was written"));
  return absl::OkStatus();
}

absl::Status TensorFile::readBytes(int64_t offset, int64_t bytes,
                                   void *out) const {
  absl::StatusOr<int64_t> got =
      preadAll(fd, filePath, out, bytes, layout.dataOffset + offset);
  if (!got.ok())
    return got.status();
  if (*got != bytes)
    return cutShort(bytes, layout.dataOffset + offset);
  return absl::OkStatus();
}

absl::Status TensorFile::writeBytes(int64_t offset, int64_t bytes,
                                    const void *data) const {
  return pwriteAll(fd, filePath, data, bytes, layout.dataOffset + offset);
}

absl::Status TensorFile::sync() const {
  if (::fsync(fd) != 0)
    return ioError(errno, filePath, "cannot flush to disk");
  return absl::OkStatus();
}

double phobos::storage::randomValue(uint64_t seed, uint64_t index) {
  // splitmix64 of a counter keyed by the seed.
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  // The top 24 bits: k / 2^23 - 1 for k in [0, 2^24).
  return static_cast<double>(z >> 40) / static_cast<double>(1 << 23) - 1.0;
}

uint64_t phobos::storage::checksum(const void *data, size_t bytes) {
  return llvm::xxh3_64bits(
      llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), bytes));
}
