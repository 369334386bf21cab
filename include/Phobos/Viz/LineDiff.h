//===- LineDiff.h - What changed between two texts, line by line -*- C++
//-*-===//
//
// The visualizer shows, for each pass, the lines of IR it removed and added.
// diffLines computes a shortest edit script (Myers' O(ND) algorithm) as runs
// of kept, removed and inserted lines; a script longer than the caller's
// bound is given up on and the differing middle replaced whole, so that two
// unrelated texts of 10^4 lines cost neither time nor memory.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_VIZ_LINEDIFF_H
#define PHOBOS_VIZ_LINEDIFF_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

namespace phobos::viz {

/// One run of a line edit script, read from the start of both texts.
struct LineEdit {
  enum class Kind : uint8_t {
    /// The next `count` lines of both texts are equal.
    Keep,
    /// The next `count` lines of the old text are gone.
    Remove,
    /// The next `count` lines of the new text are new.
    Insert,
  };
  Kind kind = Kind::Keep;
  size_t count = 0;

  bool operator==(const LineEdit &other) const {
    return kind == other.kind && count == other.count;
  }
};

/// Runs that turn `before` into `after`, each run as long as it can be and
/// no two neighbours of one kind; a removal comes before the insertion it
/// pairs with. Where more than `maxEdits` lines would be removed or inserted
/// (after the common first and last lines are set aside), the middle is
/// one removal and one insertion.
llvm::SmallVector<LineEdit> diffLines(llvm::ArrayRef<llvm::StringRef> before,
                                      llvm::ArrayRef<llvm::StringRef> after,
                                      size_t maxEdits = 4000);

} // namespace phobos::viz

#endif // PHOBOS_VIZ_LINEDIFF_H
