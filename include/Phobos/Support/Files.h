//===- Files.h - Reading input files that end -------------------*- C++ -*-===//
//
// An input named by a user may be a FIFO (reading it blocks until a writer
// comes), a device such as /dev/zero (reading it never ends and takes all
// memory) or a file of gigabytes. The tools read their inputs through
// readRegularFile, which refuses anything but a regular file and any file
// larger than the caller's limit before reading a byte.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_SUPPORT_FILES_H
#define PHOBOS_SUPPORT_FILES_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace phobos {

/// The most a tool reads of one input file (a source, a module, a span map,
/// a cache entry): the front end refuses sources over 1 MiB at a location,
/// so this only keeps a mistaken argument from taking all memory.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t(256) << 20;

/// The contents of `path` if it is a regular file of at most `maxBytes`.
/// Errors: "cannot read 'PATH': REASON" (missing, not a regular file, larger
/// than the limit).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(const llvm::Twine &path, uint64_t maxBytes, bool isText = true);

/// readRegularFile, except that "-" is standard input (read as it is).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(const llvm::Twine &path, uint64_t maxBytes = kMaxInputFileBytes);

/// The file a source location names, as the PTX's line info names it:
/// absolute (without `.` and `..`) where `path` is a file on disk, since a
/// tool may be given a relative path and the PTX outlives the working
/// directory; as it is otherwise ("<stdin>", a notebook cell).
std::string sourceFileForLineInfo(llvm::StringRef path);

} // namespace phobos

#endif // PHOBOS_SUPPORT_FILES_H
