//===- JsonTest.cpp - JSON parsing with a bounded nesting depth -----------===//
//
// A file of a million '[' overflowed llvm::json::parse's stack in every
// reader; parseJson refuses it with the place it goes too deep.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Support/Json.h"

#include "gtest/gtest.h"

#include <string>

using namespace phobos;

namespace {

TEST(JsonTest, ParsesWhatLlvmParses) {
  llvm::Expected<llvm::json::Value> value =
      parseJson(R"({"a": [1, {"b": "[[[{{{"}], "c": "\"["})");
  ASSERT_TRUE(bool(value)) << llvm::toString(value.takeError());
  EXPECT_EQ((*value->getAsObject()->getArray("a"))[1].getAsObject()->getString("b"),
            "[[[{{{");
  llvm::Expected<llvm::json::Value> bad = parseJson("{\"a\": ");
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

TEST(JsonTest, RefusesDeepNestingWithItsPlace) {
  std::string atLimit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  llvm::Expected<llvm::json::Value> fits = parseJson(atLimit);
  EXPECT_TRUE(bool(fits));
  if (!fits)
    llvm::consumeError(fits.takeError());

  // Deep enough to overflow the stack of a recursive parser.
  std::string deep = "{\"x\":\n" + std::string(1 << 20, '[');
  llvm::Expected<llvm::json::Value> refused = parseJson(deep);
  ASSERT_FALSE(bool(refused));
  EXPECT_EQ(llvm::toString(refused.takeError()),
            "line 2, column 256: JSON nested deeper than 256 levels");

  llvm::Expected<llvm::json::Value> objects =
      parseJson(std::string(1 << 20, '{'), /*maxDepth=*/4);
  ASSERT_FALSE(bool(objects));
  EXPECT_EQ(llvm::toString(objects.takeError()),
            "line 1, column 5: JSON nested deeper than 4 levels");
}

} // namespace
