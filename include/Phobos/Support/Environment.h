//===- Environment.h - Every environment variable Phobos reads --*- C++ -*-===//
//
// One registry of the environment variables the libraries and tools read,
// in the manner of Triton's GetEnv.hpp: each has a name, what it does, and
// whether it changes the code a kernel compiles to. Those that do are named
// in the compiler's version (KernelCache.cpp's compilerVersion), so kernels
// built with them stay apart in the kernel cache; the list comes from here,
// not from a copy. Reading a name that is not registered is a programming
// error. A variable never overrides an option a caller sets explicitly (a
// pass pipeline option, a tool flag): it only changes a default.
// docs/runtime.md has the table; a unit test keeps it and this in step.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_SUPPORT_ENVIRONMENT_H
#define PHOBOS_SUPPORT_ENVIRONMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace phobos {

/// One environment variable Phobos reads.
struct EnvironmentVariable {
  llvm::StringLiteral name;
  /// What it does, one line (docs/runtime.md shows the same).
  llvm::StringLiteral help;
  /// Its label in the compiler's version when set ("+ptxas:"); empty for a
  /// variable that does not change compiled code.
  llvm::StringLiteral versionLabel;
};

/// Every registered variable, by name.
llvm::ArrayRef<EnvironmentVariable> environmentVariables();

/// The value of the registered variable `name`; nullopt when it is unset or
/// empty.
std::optional<std::string> getEnvironment(llvm::StringRef name);

/// The labels and values of the set variables that change compiled code,
/// in registry order ("+ptxas:-Ofc=min"); empty when none is set.
std::string codeChangingEnvironment();

} // namespace phobos

#endif // PHOBOS_SUPPORT_ENVIRONMENT_H
