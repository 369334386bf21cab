//===- Environment.h - Every environment variable Phobos reads --*- C++ -*-===//
//
// One registry of the environment variables the libraries and tools read,
// in the manner of Triton's GetEnv.hpp: each has a name and what it does.
// They say where things are (the kernel cache, nvJitLink, credentials);
// none changes the code a kernel compiles to (A/B settings are a tool's
// --experiment flags, Support/Experiments.h). Reading a name that is not
// registered is a programming error. A variable never overrides an option
// a caller sets explicitly (a tool flag): it only changes a default.
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
};

/// Every registered variable, by name.
llvm::ArrayRef<EnvironmentVariable> environmentVariables();

/// The value of the registered variable `name`; nullopt when it is unset or
/// empty.
std::optional<std::string> getEnvironment(llvm::StringRef name);

} // namespace phobos

#endif // PHOBOS_SUPPORT_ENVIRONMENT_H
