//===- Wrap.h - What the C API's files share ---------------------*- C++ -*-===//
//
// The error object behind PhobosError and the conversions between the C
// API's strings and LLVM's, for Compiler.cpp and Runtime.cpp. Internal: not
// installed.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_CAPI_WRAP_H
#define PHOBOS_LIB_CAPI_WRAP_H

#include "phobos-c/Compiler.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace phobos::capi {

/// What a PhobosError holds: the message, where in a source it points, and
/// for a rejected launch argument, which one.
struct ErrorObject {
  std::string message, file;
  unsigned line = 0, column = 0;
  std::string parameter;
};

inline PhobosStringRef wrap(llvm::StringRef text) {
  return {text.data(), text.size()};
}
inline llvm::StringRef unwrap(PhobosStringRef text) {
  return text.data ? llvm::StringRef(text.data, text.length)
                   : llvm::StringRef();
}
inline ErrorObject *unwrap(PhobosError error) {
  return static_cast<ErrorObject *>(error.ptr);
}

inline PhobosError makeError(std::string message) {
  return {new ErrorObject{std::move(message), "", 0, 0, ""}};
}

/// Null for success; otherwise a session's error keeps its place and a
/// launch error its argument (its message is then the reason alone).
PhobosError wrapError(llvm::Error error);

} // namespace phobos::capi

#endif // PHOBOS_LIB_CAPI_WRAP_H
