//===- Files.cpp - Reading input files that end ---------------------------===//

#include "Phobos/Support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace phobos;

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
phobos::readRegularFile(const llvm::Twine &path, uint64_t maxBytes,
                        bool isText) {
  std::string name = path.str();
  auto refuse = [&](const llvm::Twine &why) {
    return llvm::createStringError("cannot read '" + name + "': " + why.str());
  };
  llvm::sys::fs::file_status status;
  if (std::error_code error = llvm::sys::fs::status(name, status))
    return refuse(error.message());
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    return refuse("it is a directory");
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return refuse("not a regular file (a FIFO, a device or a socket would "
                  "block or never end)");
  if (status.getSize() > maxBytes)
    return refuse("it is " + llvm::Twine(status.getSize()) +
                  " bytes, more than the " + llvm::Twine(maxBytes) +
                  " this input may be");
  // The size is read again: a file that grew meanwhile is refused too.
  auto buffer = llvm::MemoryBuffer::getFile(name, isText,
                                            /*RequiresNullTerminator=*/true);
  if (!buffer)
    return refuse(buffer.getError().message());
  if ((*buffer)->getBufferSize() > maxBytes)
    return refuse("it grew beyond " + llvm::Twine(maxBytes) + " bytes");
  return std::move(*buffer);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
phobos::readInputFile(const llvm::Twine &path, uint64_t maxBytes) {
  std::string name = path.str();
  if (name != "-")
    return readRegularFile(name, maxBytes);
  auto buffer = llvm::MemoryBuffer::getSTDIN();
  if (!buffer)
    return llvm::createStringError("cannot read standard input: " +
                                   buffer.getError().message());
  return std::move(*buffer);
}

std::string phobos::sourceFileForLineInfo(llvm::StringRef path) {
  llvm::SmallString<256> absolute(path);
  if (!llvm::sys::fs::is_regular_file(absolute) ||
      llvm::sys::fs::make_absolute(absolute))
    return path.str();
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  return absolute.str().str();
}
