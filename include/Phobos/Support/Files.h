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

namespace phobos {

/// The contents of `path` if it is a regular file of at most `maxBytes`.
/// Errors: "cannot read 'PATH': REASON" (missing, not a regular file, larger
/// than the limit).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(const llvm::Twine &path, uint64_t maxBytes, bool isText = true);

} // namespace phobos

#endif // PHOBOS_SUPPORT_FILES_H
