//===- TuningCache.cpp - Tuned variants on disk, by kernel, chip and shape ===//

#include "Phobos/Runtime/TuningCache.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Support/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace phobos;

TuningKey::TuningKey() : compiler(compilerVersion().str()) {}

std::string TuningKey::dimsText() const {
  std::vector<std::pair<std::string, int64_t>> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  std::string text;
  for (auto &[name, value] : sorted)
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text;
}

std::string TuningKey::digest() const {
  std::string text = "phobos-tuning 1\n";
  text += "compiler " + compiler + "\n";
  text += "chip " + chip + "\n";
  text += "kernel " + kernel + "\n";
  text += "dims " + dimsText() + "\n";
  // Only general searches have this line, so that the default (specialised)
  // key stays what it was.
  if (general)
    text += "general\n";
  text += "source " + std::to_string(source.size()) + "\n";
  text += source;
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

std::string TuningCache::recordPath(llvm::StringRef digest) const {
  llvm::SmallString<256> path(root);
  llvm::sys::path::append(path, "v1", "tuning", digest.take_front(2),
                          digest + ".json");
  return std::string(path);
}

std::optional<llvm::json::Object>
TuningCache::lookup(const TuningKey &key) const {
  std::string digest = key.digest();
  std::string path = recordPath(digest);
  if (!llvm::sys::fs::exists(path))
    return std::nullopt;
  auto buffer = readRegularFile(path, kMaxInputFileBytes);
  // A damaged record (not JSON, nested too deep, not a record of this key)
  // is a miss: it is removed, searched again and stored anew.
  auto damaged = [&]() -> std::optional<llvm::json::Object> {
    llvm::sys::fs::remove(path);
    return std::nullopt;
  };
  if (!buffer) { // a FIFO or a device in its place
    llvm::consumeError(buffer.takeError());
    return damaged();
  }
  llvm::Expected<llvm::json::Value> parsed =
      phobos::parseJson((*buffer)->getBuffer());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return damaged();
  }
  llvm::json::Object *record = parsed->getAsObject();
  if (!record || record->getString("key") != llvm::StringRef(digest) ||
      !variantOf(*record))
    return damaged();
  return std::move(*record);
}

std::optional<std::vector<std::pair<std::string, int64_t>>>
TuningCache::variantOf(const llvm::json::Object &record) {
  const llvm::json::Array *order = record.getArray("variant_order");
  const llvm::json::Object *variant = record.getObject("variant");
  if (!order || !variant)
    return std::nullopt;
  std::vector<std::pair<std::string, int64_t>> result;
  for (const llvm::json::Value &name : *order) {
    std::optional<llvm::StringRef> text = name.getAsString();
    std::optional<int64_t> value =
        text ? variant->getInteger(*text) : std::nullopt;
    if (!value)
      return std::nullopt;
    result.emplace_back(text->str(), *value);
  }
  return result;
}

llvm::Error TuningCache::store(const TuningKey &key,
                               llvm::json::Object record) const {
  std::string digest = key.digest();
  std::string path = recordPath(digest);
  llvm::SmallString<256> folder(path);
  llvm::sys::path::remove_filename(folder);
  if (std::error_code error = llvm::sys::fs::create_directories(folder))
    return llvm::createStringError(error, "cannot create '%s': %s",
                                   folder.c_str(), error.message().c_str());
  llvm::json::Object dims;
  for (auto &[name, value] : key.dims)
    dims[name] = value;
  record["format"] = 1;
  record["key"] = digest;
  record["kernel"] = key.kernel;
  record["chip"] = key.chip;
  record["dims"] = std::move(dims);
  record["compiler"] = key.compiler;
  std::string text =
      llvm::formatv("{0:2}", llvm::json::Value(std::move(record))).str() + "\n";
  llvm::SmallString<256> temporary;
  int fd;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          folder + "/." + digest.substr(0, 16) + ".%%%%%%%%", fd, temporary))
    return llvm::createStringError(error, "cannot write in '%s': %s",
                                   folder.c_str(), error.message().c_str());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temporary);
      return llvm::createStringError(os.error(), "cannot write '%s'",
                                     temporary.c_str());
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return llvm::createStringError(error, "cannot publish '%s': %s",
                                   path.c_str(), error.message().c_str());
  }
  return llvm::Error::success();
}
