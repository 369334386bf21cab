//===- NpyFile.h - Reading NumPy .npy files into host tensors ---*- C++ -*-===//
//
// phobos-run --input reads a tensor from a .npy file (what the Python
// package's CPU path writes); HostTensor::writeNpy is the other direction.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_RUNTIME_NPYFILE_H
#define PHOBOS_RUNTIME_NPYFILE_H

#include "Phobos/Runtime/HostTensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace phobos {

/// Parses a .npy file's bytes: versions 1 to 3, C order, little-endian
/// `f2 f4 f8 i4 i8` or `b1`. Errors say what is wrong with the file.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes);

/// Reads `path` with parseNpy; errors name the file.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);

} // namespace phobos

#endif // PHOBOS_RUNTIME_NPYFILE_H
