//===- OutputJournal.cpp - What a cluster job has stored ------------------===//
//
// The file is text, one record a line, appended with one write(2) per line:
// a scheduler killed in the middle of a line leaves a line without its
// newline, which the reader drops (the tile is computed again). Everything
// else that does not parse is an error at its line: a journal is never
// guessed at.
//
//===----------------------------------------------------------------------===//

#include "Phobos/ClusterRuntime/OutputJournal.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace phobos;
using namespace phobos::storage;

namespace {

constexpr const char *kMagic = "PHOBOS-JOURNAL v1";
constexpr int64_t kMaxJournalBytes = int64_t(64) << 20;

bool parseHex64(absl::string_view text, uint64_t &value) {
  if (text.size() != 16)
    return false;
  return absl::SimpleHexAtoi(text, &value);
}

/// `128,0` -> {128, 0}; every item an integer of at least `least`.
bool parseList(absl::string_view text, int64_t least,
               std::vector<int64_t> &values) {
  values.clear();
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    int64_t value;
    if (!absl::SimpleAtoi(item, &value) || value < least)
      return false;
    values.push_back(value);
  }
  return !values.empty();
}

std::string joinList(const std::vector<int64_t> &values) {
  return absl::StrJoin(values, ",");
}

} // namespace

absl::StatusOr<JournalContents>
phobos::storage::parseJournal(const std::string &text, const std::string &path) {
  JournalContents contents;
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // The text after the last newline: empty, or a line cut short.
  if (!lines.back().empty())
    contents.tornTail = true;
  lines.pop_back();
  if (lines.empty())
    return contents;
  auto error = [&](size_t index, const std::string &message) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", index + 1, ": ", message));
  };
  auto shown = [](absl::string_view line) {
    std::string text(line.substr(0, 80));
    return absl::StrCat("'", text, line.size() > 80 ? "...'" : "'");
  };
  if (lines[0] != kMagic)
    return error(0, absl::StrCat("not a Phobos journal (expected '", kMagic,
                                 "', got ", shown(lines[0]), ")"));
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    std::vector<absl::string_view> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    absl::string_view keyword = words.empty() ? "" : words[0];
    if (keyword == "key") {
      uint64_t value;
      if (words.size() != 2 || !parseHex64(words[1], value))
        return error(i, absl::StrCat("expected 'key' and 16 hex digits, got ",
                                     shown(line)));
      if (!contents.key.empty())
        return error(i, "a second 'key' line");
      contents.key = std::string(words[1]);
    } else if (keyword == "bindings") {
      for (size_t w = 1; w < words.size(); ++w) {
        std::pair<absl::string_view, absl::string_view> item =
            absl::StrSplit(words[w], absl::MaxSplits('=', 1));
        int64_t value;
        if (item.first.empty() || !absl::SimpleAtoi(item.second, &value) ||
            value <= 0)
          return error(i, absl::StrCat("expected NAME=SIZE with a positive "
                                       "size, got '",
                                       words[w], "'"));
        contents.bindings[std::string(item.first)] = value;
      }
    } else if (keyword == "partial") {
      // The path is the rest of the line: it may hold spaces.
      size_t tensorEnd = words.size() >= 3 ? line.find(' ', 8) : line.npos;
      if (words.size() < 3 || tensorEnd == line.npos)
        return error(i, absl::StrCat("expected 'partial TENSOR PATH', got ",
                                     shown(line)));
      contents.partials[std::string(words[1])] =
          std::string(line.substr(tensorEnd + 1));
    } else if (keyword == "stored") {
      JournalTile tile;
      uint64_t id = 0;
      if (words.size() != 6 || !absl::SimpleAtoi(words[1], &id) ||
          id > UINT32_MAX || !parseList(words[3], 0, tile.offsets) ||
          !parseList(words[4], 1, tile.shape) ||
          tile.offsets.size() != tile.shape.size() ||
          !parseHex64(words[5], tile.checksum))
        return error(i, absl::StrCat("expected 'stored ID TENSOR OFFSETS "
                                     "SHAPE CHECKSUM' (offsets and shape of "
                                     "one rank, 16 hex digits), got ",
                                     shown(line)));
      if (contents.key.empty())
        return error(i, "a 'stored' line before the 'key' line");
      tile.id = static_cast<uint32_t>(id);
      tile.tensor = std::string(words[2]);
      if (!contents.partials.count(tile.tensor))
        return error(i, absl::StrCat("tensor '", tile.tensor,
                                     "' has no 'partial' line before it"));
      contents.stored.push_back(std::move(tile));
    } else {
      return error(i, absl::StrCat("expected 'key', 'bindings', 'partial' or "
                                   "'stored', got ",
                                   shown(line)));
    }
  }
  if (contents.key.empty())
    return error(lines.size() - 1, "the journal has no 'key' line");
  return contents;
}

std::string phobos::storage::journalHeader(const JournalContents &contents) {
  std::string text = absl::StrCat(kMagic, "\nkey ", contents.key, "\nbindings");
  for (auto &[name, value] : contents.bindings)
    absl::StrAppend(&text, " ", name, "=", value);
  absl::StrAppend(&text, "\n");
  for (auto &[tensor, path] : contents.partials)
    absl::StrAppend(&text, "partial ", tensor, " ", path, "\n");
  return text;
}

std::string phobos::storage::journalLine(const JournalTile &tile) {
  return absl::StrFormat("stored %u %s %s %s %016x\n", tile.id, tile.tensor,
                         joinList(tile.offsets), joinList(tile.shape),
                         tile.checksum);
}

//===----------------------------------------------------------------------===//
// The open journal
//===----------------------------------------------------------------------===//

absl::StatusOr<OutputJournal> OutputJournal::lock(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return absl::UnavailableError(
        absl::StrCat("cannot open the journal ", path, ": ", std::strerror(errno)));
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("the journal ", path, " is not a regular file"));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK)
      return absl::FailedPreconditionError(absl::StrCat(
          "another phobos-sched is running a job with this output: it holds "
          "the lock on ",
          path));
    return absl::UnavailableError(absl::StrCat("cannot lock the journal ", path,
                                               ": ", std::strerror(error)));
  }
  OutputJournal journal;
  journal.filePath = path;
  journal.fd = fd;
  return journal;
}

OutputJournal::OutputJournal(OutputJournal &&other) noexcept
    : filePath(std::move(other.filePath)), fd(other.fd) {
  other.fd = -1;
}

OutputJournal &OutputJournal::operator=(OutputJournal &&other) noexcept {
  if (this != &other) {
    if (fd >= 0)
      ::close(fd);
    filePath = std::move(other.filePath);
    fd = other.fd;
    other.fd = -1;
  }
  return *this;
}

OutputJournal::~OutputJournal() {
  if (fd >= 0)
    ::close(fd);
}

absl::StatusOr<JournalContents> OutputJournal::read() const {
  struct stat status;
  if (::fstat(fd, &status) != 0)
    return absl::UnavailableError(
        absl::StrCat("cannot read the journal ", filePath, ": ", std::strerror(errno)));
  if (status.st_size > kMaxJournalBytes)
    return absl::FailedPreconditionError(absl::StrCat(
        "the journal ", filePath, " holds ", status.st_size,
        " bytes, more than a journal's 64 MiB: it is not a journal"));
  std::string text(static_cast<size_t>(status.st_size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t got = ::pread(fd, text.data() + done, text.size() - done,
                          static_cast<off_t>(done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return absl::UnavailableError(absl::StrCat(
          "cannot read the journal ", filePath, ": ",
          got < 0 ? std::strerror(errno) : "it was cut short while read"));
    done += static_cast<size_t>(got);
  }
  return parseJournal(text, filePath);
}

static absl::Status writeAll(int fd, const std::string &text, off_t at,
                             const std::string &path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t put = at < 0 ? ::write(fd, text.data() + done, text.size() - done)
                         : ::pwrite(fd, text.data() + done, text.size() - done,
                                    at + static_cast<off_t>(done));
    if (put < 0 && errno == EINTR)
      continue;
    if (put < 0)
      return absl::UnavailableError(absl::StrCat(
          "cannot write the journal ", path, ": ", std::strerror(errno)));
    done += static_cast<size_t>(put);
  }
  return absl::OkStatus();
}

absl::Status OutputJournal::rewrite(const JournalContents &contents) {
  std::string text = journalHeader(contents);
  for (const JournalTile &tile : contents.stored)
    text += journalLine(tile);
  if (::ftruncate(fd, 0) != 0)
    return absl::UnavailableError(absl::StrCat(
        "cannot write the journal ", filePath, ": ", std::strerror(errno)));
  if (absl::Status status = writeAll(fd, text, 0, filePath); !status.ok())
    return status;
  if (::lseek(fd, 0, SEEK_END) < 0 || ::fsync(fd) != 0)
    return absl::UnavailableError(absl::StrCat(
        "cannot write the journal ", filePath, ": ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status OutputJournal::append(const JournalTile &tile) {
  return writeAll(fd, journalLine(tile), -1, filePath);
}

void OutputJournal::remove() {
  if (fd < 0)
    return;
  ::unlink(filePath.c_str());
  ::close(fd);
  fd = -1;
}
