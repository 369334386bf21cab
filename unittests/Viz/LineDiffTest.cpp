//===- LineDiffTest.cpp - The visualizer's line diff ----------------------===//
//
// The edit scripts turn the old text into the new one, are as short as a
// longest common subsequence allows (checked against dynamic programming on
// random texts), keep their documented form (merged runs, removals before
// insertions), and give up on the middle past the bound.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Viz/LineDiff.h"

#include "gtest/gtest.h"

#include <random>
#include <string>
#include <vector>

using namespace phobos::viz;
using Kind = LineEdit::Kind;

namespace {

std::vector<llvm::StringRef> refs(const std::vector<std::string> &lines) {
  return std::vector<llvm::StringRef>(lines.begin(), lines.end());
}

/// `before` with `edits` applied; fails the test where they do not fit.
std::vector<std::string> apply(const std::vector<std::string> &before,
                               const std::vector<std::string> &after,
                               llvm::ArrayRef<LineEdit> edits) {
  std::vector<std::string> result;
  size_t old = 0, fresh = 0;
  for (const LineEdit &edit : edits) {
    EXPECT_GT(edit.count, 0u);
    switch (edit.kind) {
    case Kind::Keep:
      for (size_t k = 0; k < edit.count; ++k) {
        EXPECT_EQ(before.at(old + k), after.at(fresh + k));
        result.push_back(before.at(old + k));
      }
      old += edit.count;
      fresh += edit.count;
      break;
    case Kind::Remove:
      old += edit.count;
      break;
    case Kind::Insert:
      for (size_t k = 0; k < edit.count; ++k)
        result.push_back(after.at(fresh + k));
      fresh += edit.count;
      break;
    }
  }
  EXPECT_EQ(old, before.size());
  return result;
}

size_t changedLines(llvm::ArrayRef<LineEdit> edits) {
  size_t changed = 0;
  for (const LineEdit &edit : edits)
    if (edit.kind != Kind::Keep)
      changed += edit.count;
  return changed;
}

size_t longestCommonSubsequence(const std::vector<std::string> &a,
                                const std::vector<std::string> &b) {
  std::vector<std::vector<size_t>> table(a.size() + 1,
                                         std::vector<size_t>(b.size() + 1));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      table[i][j] = a[i - 1] == b[j - 1]
                        ? table[i - 1][j - 1] + 1
                        : std::max(table[i - 1][j], table[i][j - 1]);
  return table[a.size()][b.size()];
}

TEST(LineDiffTest, EqualTextsAreOneKeep) {
  std::vector<std::string> text = {"a", "b", "c"};
  EXPECT_EQ(diffLines(refs(text), refs(text)),
            (llvm::SmallVector<LineEdit>{{Kind::Keep, 3}}));
  EXPECT_TRUE(diffLines({}, {}).empty());
}

TEST(LineDiffTest, ChangedLineIsRemovalThenInsertion) {
  std::vector<std::string> before = {"a", "b", "c", "d"};
  std::vector<std::string> after = {"a", "B", "c", "d", "e"};
  EXPECT_EQ(diffLines(refs(before), refs(after)),
            (llvm::SmallVector<LineEdit>{{Kind::Keep, 1},
                                         {Kind::Remove, 1},
                                         {Kind::Insert, 1},
                                         {Kind::Keep, 2},
                                         {Kind::Insert, 1}}));
}

TEST(LineDiffTest, ShortestScriptOnRandomTexts) {
  std::mt19937 random(47);
  for (int trial = 0; trial < 300; ++trial) {
    // Few distinct lines, so that texts share many in different orders.
    auto text = [&] {
      std::vector<std::string> lines(random() % 14);
      for (std::string &line : lines)
        line = std::string(1, static_cast<char>('a' + random() % 4));
      return lines;
    };
    std::vector<std::string> before = text(), after = text();
    llvm::SmallVector<LineEdit> edits = diffLines(refs(before), refs(after));
    EXPECT_EQ(apply(before, after, edits), after);
    size_t common = longestCommonSubsequence(before, after);
    EXPECT_EQ(changedLines(edits), before.size() + after.size() - 2 * common);
    // Runs are merged, and a removal never follows an insertion.
    for (size_t k = 1; k < edits.size(); ++k) {
      EXPECT_NE(edits[k].kind, edits[k - 1].kind);
      EXPECT_FALSE(edits[k - 1].kind == Kind::Insert &&
                   edits[k].kind == Kind::Remove);
    }
  }
}

TEST(LineDiffTest, PastTheBoundTheMiddleIsReplaced) {
  std::vector<std::string> before = {"head", "1", "2", "3", "tail"};
  std::vector<std::string> after = {"head", "x", "2", "y", "tail"};
  // Four changed lines are needed; a bound of 3 gives up on the middle.
  EXPECT_EQ(diffLines(refs(before), refs(after), 3),
            (llvm::SmallVector<LineEdit>{{Kind::Keep, 1},
                                         {Kind::Remove, 3},
                                         {Kind::Insert, 3},
                                         {Kind::Keep, 1}}));
  EXPECT_EQ(changedLines(diffLines(refs(before), refs(after), 4)), 4u);
}

} // namespace
