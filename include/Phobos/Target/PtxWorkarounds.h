//===- PtxWorkarounds.h - Rewrites around ptxas bugs -------------*- C++ -*-===//
//
// Rewrites of the PTX that LLVM's NVPTX back end writes, each around a
// miscompilation in ptxas (and the CUDA driver's JIT) that Phobos's tests
// found.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TARGET_PTXWORKAROUNDS_H
#define PHOBOS_TARGET_PTXWORKAROUNDS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace phobos {

/// `ptx` with every integer negation `neg.sN d, a;` written as
/// `not.bN d, a; add.sN d, d, 1;` (the same two's-complement value).
///
/// ptxas of CUDA 13.0 at -O3 for sm_90 fuses `max(max(-a, b), c)` (and min)
/// into one three-input VIMNMX3 and drops the negation of `a`, so
/// `tmax(s, tmax(-t, x))` computes `max(s, t, x)`. Found by the
/// differential fuzzer (seeds 3874 and 4220; docs/testing.md); the not/add
/// form is assembled correctly.
std::string rewriteIntegerNegations(llvm::StringRef ptx);

} // namespace phobos

#endif // PHOBOS_TARGET_PTXWORKAROUNDS_H
