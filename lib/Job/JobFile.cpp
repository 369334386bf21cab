//===- JobFile.cpp - Cluster job files ------------------------------------===//
//
// A line-oriented parser: each line is `source = PATH`, `kernel = NAME`,
// `dim NAME = INT`, `tensor NAME = MODE TYPE SHAPE URI` or
// `scalar NAME = TYPE VALUE`; `#` and `//` start comments. Every error
// points at the word that is wrong.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Job/JobFile.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cmath>
#include <cstring>

using namespace phobos;
using namespace phobos::job;
using llvm::SMLoc;
using llvm::StringRef;

StringRef phobos::job::spelling(Mode mode) {
  switch (mode) {
  case Mode::Read: return "read";
  case Mode::Write: return "write";
  case Mode::Rmw: return "rmw";
  }
  return "?";
}

template <typename T>
static const T *findNamed(const std::vector<T> &list, StringRef name) {
  for (const T &item : list)
    if (item.name == name)
      return &item;
  return nullptr;
}

const Dim *Job::findDim(StringRef name) const { return findNamed(dims, name); }
const Tensor *Job::findTensor(StringRef name) const {
  return findNamed(tensors, name);
}
const Scalar *Job::findScalar(StringRef name) const {
  return findNamed(scalars, name);
}

void phobos::job::reportError(llvm::SourceMgr &sourceMgr, SMLoc loc,
                              const llvm::Twine &message,
                              llvm::raw_ostream &os) {
  sourceMgr.PrintMessage(os, loc, llvm::SourceMgr::DK_Error, message);
}

namespace {

/// One word of a line and where it starts.
struct Word {
  StringRef text;
  SMLoc loc;
};

class Parser {
public:
  Parser(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os)
      : sourceMgr(sourceMgr), os(os) {}

  std::optional<Job> run();

private:
  bool error(SMLoc loc, const llvm::Twine &message) {
    reportError(sourceMgr, loc, message, os);
    return false;
  }
  bool parseLine(StringRef line);
  bool expectEquals(llvm::ArrayRef<Word> words, StringRef form);
  bool checkName(const Word &word, llvm::StringSet<> &seen, StringRef what);
  std::optional<ElementType> parseType(const Word &word);

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  Job job;
  SMLoc lineLoc;
  llvm::StringSet<> dimNames, tensorNames, scalarNames;
};

/// Just past the end of `word`: where a missing next word would go.
static SMLoc endOf(const Word &word) {
  return SMLoc::getFromPointer(word.text.end());
}

/// Splits `line` at blanks, dropping comments.
static std::vector<Word> splitWords(StringRef line) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
      ++i;
      continue;
    }
    if (line[i] == '#' || line.substr(i).starts_with("//"))
      break;
    // '=' is a word of its own.
    if (line[i] == '=') {
      words.push_back({line.substr(i, 1), SMLoc::getFromPointer(line.data() + i)});
      ++i;
      continue;
    }
    size_t end = i;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' &&
           line[end] != '\r' && line[end] != '=')
      ++end;
    words.push_back({line.substr(i, end - i),
                     SMLoc::getFromPointer(line.data() + i)});
    i = end;
  }
  return words;
}

bool Parser::expectEquals(llvm::ArrayRef<Word> words, StringRef form) {
  if (words.size() < 3 || words[2].text != "=")
    return error(words.size() > 2 ? words[2].loc : words.back().loc,
                 "expected '" + form + "'");
  return true;
}

static bool isIdentifier(StringRef text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) ||
                        text[0] == '_'))
    return false;
  return llvm::all_of(text, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool Parser::checkName(const Word &word, llvm::StringSet<> &seen,
                       StringRef what) {
  if (!isIdentifier(word.text))
    return error(word.loc, "'" + word.text + "' is not a valid " + what +
                               " name");
  if (!seen.insert(word.text).second)
    return error(word.loc, what + " '" + word.text + "' is given twice");
  return true;
}

std::optional<ElementType> Parser::parseType(const Word &word) {
  std::optional<ElementType> type = parseElementType(word.text);
  if (!type)
    error(word.loc, "unknown element type '" + word.text +
                        "'; expected f16, bf16, f32, f64, i32, i64 or bool");
  return type;
}

bool Parser::parseLine(StringRef line) {
  std::vector<Word> words = splitWords(line);
  if (words.empty())
    return true;
  StringRef key = words[0].text;
  if (key == "source" || key == "kernel") {
    if (words.size() < 2 || words[1].text != "=")
      return error(words.size() > 1 ? words[1].loc : words[0].loc,
                   "expected '" + key + " = " +
                       (key == "source" ? "FILE" : "NAME") + "'");
    if (words.size() != 3)
      return error(words.size() > 3 ? words[3].loc : words[1].loc,
                   "expected one " + StringRef(key == "source" ? "path" : "name") +
                       " after '" + key + " ='");
    std::string &slot = key == "source" ? job.source : job.kernel;
    SMLoc &slotLoc = key == "source" ? job.sourceLoc : job.kernelLoc;
    if (!slot.empty())
      return error(words[0].loc, "'" + key + "' is given twice");
    if (key == "kernel" && !isIdentifier(words[2].text))
      return error(words[2].loc,
                   "'" + words[2].text + "' is not a valid kernel name");
    slot = words[2].text.str();
    slotLoc = words[2].loc;
    return true;
  }
  if (key == "dim") {
    if (words.size() < 2)
      return error(words[0].loc, "expected 'dim NAME = VALUE'");
    if (!checkName(words[1], dimNames, "dim") ||
        !expectEquals(words, "dim NAME = VALUE"))
      return false;
    if (words.size() != 4)
      return error(words.size() > 4 ? words[4].loc : words[2].loc,
                   "expected one integer after 'dim " + words[1].text + " ='");
    int64_t value = 0;
    if (words[3].text.getAsInteger(10, value) || value <= 0)
      return error(words[3].loc, "a dim is a positive integer, got '" +
                                     words[3].text + "'");
    job.dims.push_back({words[1].text.str(), value, words[1].loc});
    return true;
  }
  if (key == "tensor") {
    const char *form = "tensor NAME = read|write|rmw TYPE SHAPE URI";
    if (words.size() < 2)
      return error(words[0].loc, "expected '" + StringRef(form) + "'");
    if (!checkName(words[1], tensorNames, "tensor") ||
        !expectEquals(words, form))
      return false;
    if (words.size() != 7)
      return error(words.size() > 7 ? words[7].loc : endOf(words.back()),
                   "expected '" + StringRef(form) + "'");
    Tensor tensor;
    tensor.name = words[1].text.str();
    tensor.loc = words[1].loc;
    tensor.modeLoc = words[3].loc;
    tensor.elementLoc = words[4].loc;
    tensor.shapeLoc = words[5].loc;
    tensor.uriLoc = words[6].loc;
    if (words[3].text == "read")
      tensor.mode = Mode::Read;
    else if (words[3].text == "write")
      tensor.mode = Mode::Write;
    else if (words[3].text == "rmw")
      tensor.mode = Mode::Rmw;
    else
      return error(words[3].loc, "unknown mode '" + words[3].text +
                                     "'; expected read, write or rmw");
    std::optional<ElementType> element = parseType(words[4]);
    if (!element)
      return false;
    tensor.element = *element;
    llvm::SmallVector<StringRef> extents;
    words[5].text.split(extents, 'x');
    for (StringRef extent : extents) {
      int64_t value = 0;
      if (extent.getAsInteger(10, value) || value <= 0)
        return error(words[5].loc, "a shape is positive extents joined by "
                                   "'x' (16384x64), got '" +
                                       words[5].text + "'");
      tensor.shape.push_back(value);
    }
    tensor.uri = words[6].text.str();
    job.tensors.push_back(std::move(tensor));
    return true;
  }
  if (key == "scalar") {
    const char *form = "scalar NAME = TYPE VALUE";
    if (words.size() < 2)
      return error(words[0].loc, "expected '" + StringRef(form) + "'");
    if (!checkName(words[1], scalarNames, "scalar") ||
        !expectEquals(words, form))
      return false;
    if (words.size() != 5)
      return error(words.size() > 5 ? words[5].loc : endOf(words.back()),
                   "expected '" + StringRef(form) + "'");
    Scalar scalar;
    scalar.name = words[1].text.str();
    scalar.loc = words[1].loc;
    scalar.typeLoc = words[3].loc;
    scalar.valueLoc = words[4].loc;
    std::optional<ElementType> type = parseType(words[3]);
    if (!type)
      return false;
    scalar.type = *type;
    StringRef text = words[4].text;
    if (*type == ElementType::Bool) {
      if (text != "true" && text != "false")
        return error(words[4].loc, "a bool scalar is true or false, got '" +
                                       text + "'");
      scalar.value = text == "true";
    } else if (isFloat(*type)) {
      double value = 0;
      if (text.getAsDouble(value) || !std::isfinite(value))
        return error(words[4].loc, "'" + text + "' is not a finite number");
      // Rounded once to the scalar's type; a finite value beyond it (1e39
      // for an f32) would reach the kernel as an infinity.
      llvm::Expected<ElementValue> exact = parseElementValue(*type, text);
      if (!exact)
        return error(words[4].loc, "scalar '" + scalar.name +
                                       "': " + llvm::toString(exact.takeError()));
      scalar.value = exact->f;
    } else {
      int64_t value = 0;
      bool fits = !text.getAsInteger(10, value) &&
                  (*type == ElementType::I64 ||
                   (value >= INT32_MIN && value <= INT32_MAX));
      if (!fits)
        return error(words[4].loc, "'" + text + "' is not an " +
                                       name(*type) + " integer");
      // A job carries its scalars as doubles (ScalarValue): beyond 2^53 an
      // i64 would reach the kernel as another integer.
      constexpr int64_t exactLimit = int64_t(1) << 53;
      if (value > exactLimit || value < -exactLimit)
        return error(words[4].loc,
                     "scalar '" + scalar.name + "': '" + text +
                         "' is beyond 2^53, which a job's scalars (carried "
                         "as doubles) cannot hold exactly");
      scalar.value = static_cast<double>(value);
    }
    job.scalars.push_back(std::move(scalar));
    return true;
  }
  return error(words[0].loc, "unknown job line '" + key +
                                 "'; expected source, kernel, dim, tensor "
                                 "or scalar");
}

std::optional<Job> Parser::run() {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef text = buffer->getBuffer();
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    lineLoc = SMLoc::getFromPointer(line.data());
    if (!parseLine(line))
      return std::nullopt;
    text = rest;
  }
  if (job.source.empty()) {
    error(SMLoc::getFromPointer(buffer->getBufferStart()),
          "the job has no 'source = FILE' line naming the kernel source");
    return std::nullopt;
  }
  return std::move(job);
}

} // namespace

std::optional<Job> phobos::job::parseJob(llvm::SourceMgr &sourceMgr,
                                         llvm::raw_ostream &os) {
  return Parser(sourceMgr, os).run();
}

bool phobos::job::checkStorage(const Job &job, llvm::SourceMgr &sourceMgr,
                               llvm::raw_ostream &os) {
  for (const Tensor &tensor : job.tensors) {
    if (!StringRef(tensor.uri).starts_with("file://") ||
        tensor.uri.size() == strlen("file://")) {
      reportError(sourceMgr, tensor.uriLoc,
                  "tensor '" + tensor.name +
                      "': storage is file:// only (file:///path/to/tensor)",
                  os);
      return false;
    }
    if (tensor.shape.size() < 1 || tensor.shape.size() > 2) {
      reportError(sourceMgr, tensor.shapeLoc,
                  "tensor '" + tensor.name +
                      "': file:// storage holds tensors of rank 1 or 2, got "
                      "rank " +
                      llvm::Twine(tensor.shape.size()),
                  os);
      return false;
    }
    if (tensor.element != ElementType::F32) {
      reportError(sourceMgr, tensor.elementLoc,
                  "tensor '" + tensor.name +
                      "': the cluster moves tiles as f32, got " +
                      name(tensor.element),
                  os);
      return false;
    }
  }
  return true;
}

std::string phobos::job::resolveSource(const Job &job, StringRef jobPath) {
  if (llvm::sys::path::is_absolute(job.source))
    return llvm::sys::fs::exists(job.source) ? job.source : "";
  if (llvm::sys::fs::exists(job.source))
    return job.source;
  llvm::SmallString<256> beside(llvm::sys::path::parent_path(jobPath));
  llvm::sys::path::append(beside, job.source);
  if (llvm::sys::fs::exists(beside))
    return std::string(beside);
  return "";
}
