//===- KernelCache.cpp - Compiled kernels on disk, shared by all launchers ===//

#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Environment.h"
#include "Phobos/Support/Experiments.h"
#include "Phobos/Runtime/Version.inc"
#include "Phobos/Support/Files.h"
#include "Phobos/Support/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <utility>

using namespace phobos;

llvm::StringRef phobos::compilerVersion() {
  // Kernels an experiment changed (a pass left out, other assembler or
  // LLVM options, a pipeline option fixed: Support/Experiments.h) are other
  // kernels: the version names each, and every cache key with it.
  static const std::string version =
      PHOBOS_COMPILER_VERSION + getExperiments().versionLabel();
  return version;
}

std::string phobos::defaultKernelCacheDir() {
  if (std::optional<std::string> dir = getEnvironment("PHOBOS_CACHE_DIR"))
    return *dir;
  if (std::optional<std::string> xdg = getEnvironment("XDG_CACHE_HOME"))
    return *xdg + "/phobos";
  if (std::optional<std::string> home = getEnvironment("HOME"))
    return *home + "/.cache/phobos";
  return "";
}

static std::string sha256Hex(llvm::StringRef data) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(data)),
                     /*LowerCase=*/true);
}

std::string KernelCacheKey::digest() const {
  std::string variantText;
  for (auto &[name, value] : variant)
    variantText += (variantText.empty() ? "" : ",") + name + "=" +
                   std::to_string(value);
  std::string text = "phobos-kernel-cache 1\n";
  text += "compiler " + compiler + "\n";
  text += "chip " + chip + "\n";
  text += "kernel " + kernel + "\n";
  text += "variant " + variantText + "\n";
  // Only specialised kernels have this line, so that the general kernel's
  // digest stays what the Python package computes.
  if (!specialized.empty()) {
    std::string facts;
    for (auto &[name, value] : specialized)
      facts += (facts.empty() ? "" : ",") + name + "=" + std::to_string(value);
    text += "aligned " + facts + "\n";
  }
  // Two copies of one source, or one Python kernel moved down its file,
  // compile to the same code with other line info (and other places in
  // the contract).
  if (!places.empty())
    text += "places " + places + "\n";
  if (!lineInfo)
    text += "lineinfo 0\n";
  text += "source " + std::to_string(source.size()) + "\n";
  text += source;
  return sha256Hex(text);
}

std::string KernelCache::entryDirectory(llvm::StringRef digest) const {
  llvm::SmallString<256> path(root);
  llvm::sys::path::append(path, "v1", digest.take_front(2), digest);
  return std::string(path);
}

/// Moves a directory out of the way (atomically), then deletes it; a reader
/// that already holds its files keeps them.
static void discard(llvm::StringRef root, llvm::StringRef directory) {
  llvm::SmallString<256> staging(root);
  llvm::sys::path::append(staging, "v1", "tmp");
  llvm::sys::fs::create_directories(staging);
  llvm::SmallString<256> trash;
  llvm::sys::path::append(staging, "discarded.%%%%%%%%%%%%");
  llvm::sys::fs::createUniquePath(staging, trash, /*MakeAbsolute=*/false);
  if (llvm::sys::fs::rename(directory, trash))
    return; // gone already: another process discarded it
  llvm::sys::fs::remove_directories(trash, /*IgnoreErrors=*/true);
}

/// A cache file's bytes; a FIFO or a device in its place (a damaged entry)
/// is refused without blocking.
static std::optional<std::string> readFile(llvm::StringRef path) {
  auto buffer = readRegularFile(path, kMaxInputFileBytes, /*isText=*/false);
  if (!buffer) {
    llvm::consumeError(buffer.takeError());
    return std::nullopt;
  }
  return (*buffer)->getBuffer().str();
}

std::optional<KernelCacheEntry>
KernelCache::lookup(llvm::StringRef digest, std::string *damage) const {
  std::string directory = entryDirectory(digest);
  if (!llvm::sys::fs::is_directory(directory))
    return std::nullopt;
  auto fail = [&](const llvm::Twine &why) -> std::optional<KernelCacheEntry> {
    if (damage)
      *damage = ("cache entry '" + directory + "' is damaged (" + why +
                 "); it was removed and will be rebuilt")
                    .str();
    discard(root, directory);
    return std::nullopt;
  };
  std::optional<std::string> manifestText = readFile(directory + "/manifest.json");
  if (!manifestText)
    return fail("no manifest.json");
  llvm::Expected<llvm::json::Value> manifest = phobos::parseJson(*manifestText);
  if (!manifest) {
    return fail("manifest.json is not JSON (" +
                llvm::toString(manifest.takeError()) + ")");
  }
  const llvm::json::Object *object = manifest->getAsObject();
  const llvm::json::Object *files = object ? object->getObject("files") : nullptr;
  if (!object || object->getInteger("format") != 1 ||
      object->getString("key") != digest || !files)
    return fail("manifest.json does not describe this key");
  KernelCacheEntry entry;
  entry.directory = directory;
  for (const auto &[name, described] : *files) {
    const llvm::json::Object *file = described.getAsObject();
    std::optional<llvm::StringRef> sha = file ? file->getString("sha256") : std::nullopt;
    std::optional<int64_t> bytes = file ? file->getInteger("bytes") : std::nullopt;
    if (!sha || !bytes || name.str().find('/') != std::string::npos)
      return fail("manifest.json lists '" + name.str() + "' without a digest");
    std::optional<std::string> data = readFile(directory + "/" + name.str());
    if (!data)
      return fail("'" + name.str() + "' is missing");
    if (static_cast<int64_t>(data->size()) != *bytes || sha256Hex(*data) != *sha)
      return fail("'" + name.str() + "' does not match its digest");
    if (name == "contract.json") {
      llvm::Expected<llvm::json::Value> contract = phobos::parseJson(*data);
      if (!contract) {
        return fail("contract.json is not JSON (" +
                    llvm::toString(contract.takeError()) + ")");
      }
      entry.contract = std::move(*contract);
    } else if (name == "kernel.ptx") {
      entry.ptx = std::move(*data);
    } else if (name == "kernel.cubin") {
      entry.cubin = std::move(*data);
    }
  }
  if (entry.contract.kind() != llvm::json::Value::Object)
    return fail("no contract.json");
  return entry;
}

static llvm::Error writeWhole(const llvm::Twine &path, llvm::StringRef data) {
  std::error_code error;
  llvm::raw_fd_ostream os(path.str(), error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(error, "cannot write '%s': %s",
                                   path.str().c_str(), error.message().c_str());
  os << data;
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(), "cannot write '%s'",
                                   path.str().c_str());
  return llvm::Error::success();
}

llvm::Expected<KernelCacheEntry>
KernelCache::store(const KernelCacheKey &key, const llvm::json::Value &contract,
                   std::optional<llvm::StringRef> ptx,
                   std::optional<llvm::StringRef> cubin) const {
  std::string digest = key.digest();
  std::string directory = entryDirectory(digest);
  llvm::SmallString<256> stagingRoot(root);
  llvm::sys::path::append(stagingRoot, "v1", "tmp");
  if (std::error_code error = llvm::sys::fs::create_directories(stagingRoot))
    return llvm::createStringError(error, "cannot create the kernel cache '%s': %s",
                                   stagingRoot.c_str(), error.message().c_str());
  if (std::error_code error =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(directory)))
    return llvm::createStringError(error, "cannot create '%s': %s",
                                   directory.c_str(), error.message().c_str());
  llvm::SmallString<256> staging;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory(
          stagingRoot + "/" + digest.substr(0, 16), staging))
    return llvm::createStringError(error, "cannot create a staging directory in '%s': %s",
                                   stagingRoot.c_str(), error.message().c_str());

  // The files, then the manifest that vouches for them.
  llvm::json::Object withFiles = *contract.getAsObject();
  withFiles["chip"] = key.chip;
  llvm::json::Object fileNames;
  if (ptx)
    fileNames["ptx"] = "kernel.ptx";
  if (cubin)
    fileNames["cubin"] = "kernel.cubin";
  withFiles["files"] = std::move(fileNames);
  std::string contractText = llvm::formatv("{0:2}", llvm::json::Value(std::move(withFiles))).str() + "\n";
  std::vector<std::pair<std::string, std::string>> files = {
      {"contract.json", contractText}};
  if (ptx)
    files.emplace_back("kernel.ptx", ptx->str());
  if (cubin)
    files.emplace_back("kernel.cubin", cubin->str());
  llvm::json::Object described, variant;
  for (auto &[name, data] : files) {
    if (llvm::Error error = writeWhole(staging + "/" + name, data)) {
      llvm::sys::fs::remove_directories(staging, true);
      return std::move(error);
    }
    described[name] = llvm::json::Object{{"sha256", sha256Hex(data)},
                                         {"bytes", static_cast<int64_t>(data.size())}};
  }
  for (auto &[name, value] : key.variant)
    variant[name] = value;
  llvm::json::Value manifest = llvm::json::Object{
      {"format", 1},          {"key", digest},
      {"kernel", key.kernel}, {"chip", key.chip},
      {"compiler", key.compiler}, {"variant", std::move(variant)},
      {"files", std::move(described)}};
  if (llvm::Error error = writeWhole(staging + "/manifest.json",
                                     llvm::formatv("{0:2}", manifest).str() + "\n")) {
    llvm::sys::fs::remove_directories(staging, true);
    return std::move(error);
  }

  // Publish. rename(2) of a directory onto an existing non-empty one fails:
  // then another process published first, and its entry is used.
  std::error_code renamed = llvm::sys::fs::rename(staging, directory);
  if (renamed)
    llvm::sys::fs::remove_directories(staging, true);
  std::string damage;
  if (std::optional<KernelCacheEntry> entry = lookup(digest, &damage))
    return std::move(*entry);
  if (renamed)
    return llvm::createStringError(renamed, "cannot publish '%s': %s",
                                   directory.c_str(), renamed.message().c_str());
  return llvm::createStringError("the entry just written to '%s' does not read back: %s",
                                 directory.c_str(), damage.c_str());
}
