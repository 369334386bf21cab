//===- LineDiff.cpp - What changed between two texts, line by line --------===//
//
// Myers, "An O(ND) Difference Algorithm and Its Variations" (1986): the
// greedy forward search over diagonals k = x - y, keeping for each edit
// distance d the furthest x reached on each diagonal; the path is read back
// from the kept rows. Rows for d take 2d + 1 entries, so the bound on d
// bounds the memory too (4000 edits: 64 MB at most, far less in practice).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Viz/LineDiff.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <optional>
#include <vector>

using namespace phobos::viz;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace {
/// Appends a run, merging it into the last one when of the same kind.
void append(SmallVector<LineEdit> &edits, LineEdit::Kind kind, size_t count) {
  if (count == 0)
    return;
  if (!edits.empty() && edits.back().kind == kind)
    edits.back().count += count;
  else
    edits.push_back({kind, count});
}

/// The edit script of `a` to `b` (lines as interned numbers), one entry a
/// line, in order; nullopt past `maxEdits`.
std::optional<std::vector<LineEdit::Kind>>
myers(ArrayRef<unsigned> a, ArrayRef<unsigned> b, size_t maxEdits) {
  const int64_t n = a.size(), m = b.size();
  const int64_t limit = std::min<int64_t>(n + m, maxEdits);
  // v[k + offset]: the furthest x on diagonal k.
  const int64_t offset = limit + 1;
  std::vector<int64_t> v(2 * offset + 1, 0);
  // rows[d]: v over diagonals -d..d before step d (32 bits: half the
  // memory).
  std::vector<std::vector<int32_t>> rows;
  int64_t found = -1;
  for (int64_t d = 0; d <= limit && found < 0; ++d) {
    rows.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
    for (int64_t k = -d; k <= d; k += 2) {
      int64_t x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                      ? v[offset + k + 1]
                      : v[offset + k - 1] + 1;
      int64_t y = x - k;
      while (x < n && y < m && a[x] == b[y])
        ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0)
    return std::nullopt;
  // Back from (n, m): each step d came from diagonal k + 1 (an insertion)
  // or k - 1 (a removal), then followed a snake of equal lines.
  std::vector<LineEdit::Kind> reversed;
  int64_t x = n, y = m;
  for (int64_t d = found; d > 0; --d) {
    const std::vector<int32_t> &row = rows[d];
    auto at = [&](int64_t k) { return row[k + d]; };
    int64_t k = x - y;
    int64_t previousK =
        (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    int64_t previousX = at(previousK);
    int64_t previousY = previousX - previousK;
    int64_t startX = previousK == k + 1 ? previousX : previousX + 1;
    for (; x > startX; --x, --y)
      reversed.push_back(LineEdit::Kind::Keep);
    reversed.push_back(previousK == k + 1 ? LineEdit::Kind::Insert
                                          : LineEdit::Kind::Remove);
    x = previousX;
    y = previousY;
  }
  for (; x > 0; --x)
    reversed.push_back(LineEdit::Kind::Keep);
  std::reverse(reversed.begin(), reversed.end());
  return reversed;
}
} // namespace

SmallVector<LineEdit> phobos::viz::diffLines(ArrayRef<StringRef> before,
                                             ArrayRef<StringRef> after,
                                             size_t maxEdits) {
  SmallVector<LineEdit> edits;
  size_t prefix = 0;
  while (prefix < before.size() && prefix < after.size() &&
         before[prefix] == after[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
  append(edits, LineEdit::Kind::Keep, prefix);
  ArrayRef<StringRef> oldMiddle =
      before.slice(prefix, before.size() - prefix - suffix);
  ArrayRef<StringRef> newMiddle =
      after.slice(prefix, after.size() - prefix - suffix);
  // Lines as numbers: the search compares each pair many times.
  llvm::DenseMap<StringRef, unsigned> numbers;
  auto intern = [&](ArrayRef<StringRef> lines) {
    std::vector<unsigned> ids;
    ids.reserve(lines.size());
    for (StringRef line : lines)
      ids.push_back(numbers.try_emplace(line, numbers.size()).first->second);
    return ids;
  };
  std::vector<unsigned> a = intern(oldMiddle), b = intern(newMiddle);
  std::optional<std::vector<LineEdit::Kind>> script = myers(a, b, maxEdits);
  if (!script) {
    append(edits, LineEdit::Kind::Remove, a.size());
    append(edits, LineEdit::Kind::Insert, b.size());
  } else {
    // Within each run of changes, removals first.
    size_t removed = 0, inserted = 0;
    auto flush = [&] {
      append(edits, LineEdit::Kind::Remove, removed);
      append(edits, LineEdit::Kind::Insert, inserted);
      removed = inserted = 0;
    };
    for (LineEdit::Kind kind : *script) {
      if (kind == LineEdit::Kind::Keep) {
        flush();
        append(edits, kind, 1);
      } else if (kind == LineEdit::Kind::Remove) {
        ++removed;
      } else {
        ++inserted;
      }
    }
    flush();
  }
  append(edits, LineEdit::Kind::Keep, suffix);
  return edits;
}
