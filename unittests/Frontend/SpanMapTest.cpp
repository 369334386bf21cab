//===- SpanMapTest.cpp - Diagnostics at the original place ----------------===//

#include "Phobos/Frontend/SpanMap.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace phobos::frontend;

namespace {

const char *kMap = R"({"format": 1, "python_file": "/k.py",
  "python_source": "line one\n    x = a + b\n",
  "default": [1, 1],
  "spans": [[3, 5, 3, 2, 5], [3, 9, 1, 2, 9], [3, 11, 1, 2, 11], [3, 13, 1, 2, 13]]})";

TEST(SpanMapTest, LooksUpTheInnermostOrClosestSpan) {
  llvm::Expected<SpanMap> map = SpanMap::parse(kMap);
  ASSERT_TRUE(bool(map)) << llvm::toString(map.takeError());
  EXPECT_EQ(map->lookup(3, 11), std::make_pair(2u, 11u)); // inside
  EXPECT_EQ(map->lookup(3, 6), std::make_pair(2u, 5u));   // inside a longer span
  EXPECT_EQ(map->lookup(3, 12), std::make_pair(2u, 11u)); // between: the one before
  EXPECT_EQ(map->lookup(3, 1), std::make_pair(2u, 5u));   // before all: the first after
  EXPECT_EQ(map->lookup(7, 1), std::make_pair(1u, 1u));   // no span on the line
}

TEST(SpanMapTest, RejectsMalformedMaps) {
  for (const char *bad : {"[]", R"({"format": 2})", R"({"format": 1})",
                          R"({"format": 1, "python_file": "a", "spans": [[1, 2]]})",
                          R"({"format": 1, "python_file": "a", "spans": [[1, 2, 3, 4, -5]]})"}) {
    llvm::Expected<SpanMap> map = SpanMap::parse(bad);
    EXPECT_FALSE(bool(map)) << bad;
    if (!map)
      EXPECT_NE(llvm::toString(map.takeError()).find("span map: "), std::string::npos);
  }
}

TEST(SpanMapTest, PrintsDiagnosticsAtThePythonLine) {
  llvm::Expected<SpanMap> map = SpanMap::parse(kMap);
  ASSERT_TRUE(bool(map));
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::SourceMgrDiagnosticHandler printer(sourceMgr, &context, os);
  SpanMapDiagnosticHandler handler(*map, "gen.ph", sourceMgr, printer, &context);
  mlir::emitError(mlir::FileLineColLoc::get(&context, "gen.ph", 3, 11)) << "shapes differ";
  mlir::emitWarning(mlir::FileLineColLoc::get(&context, "other.ph", 1, 1)) << "left alone";
  EXPECT_NE(text.find("/k.py:2:11: error: shapes differ\n    x = a + b\n          ^"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("other.ph:1:1: warning: left alone"), std::string::npos) << text;
}

} // namespace
