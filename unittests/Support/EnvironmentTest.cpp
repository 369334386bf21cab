//===- EnvironmentTest.cpp - One registry of environment variables --------===//
//
// Every variable the tree reads is in the registry, and the registry is the
// table of docs/runtime.md §11; the experiments that change compiled code
// name themselves in the compiler's version.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Environment.h"
#include "Phobos/Support/Experiments.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <regex>

using namespace phobos;

namespace {

std::string readSource(llvm::StringRef relative) {
  llvm::SmallString<256> path(PHOBOS_SOURCE_DIR);
  llvm::sys::path::append(path, relative);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "";
  return (*buffer)->getBuffer().str();
}

TEST(EnvironmentTest, TheDocsTableIsTheRegistry) {
  std::string docs = readSource("docs/runtime.md");
  ASSERT_FALSE(docs.empty());
  size_t section = docs.find("## 11. Environment variables");
  ASSERT_NE(section, std::string::npos);
  llvm::StringSet<> documented;
  std::regex row("\\| `([A-Z_]+)` \\| ([^|\\n]+) \\|");
  std::string tail = docs.substr(section);
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), row);
       it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1], help = (*it)[2];
    documented.insert(name);
    const EnvironmentVariable *found = nullptr;
    for (const EnvironmentVariable &variable : environmentVariables())
      if (variable.name == name)
        found = &variable;
    ASSERT_NE(found, nullptr) << name << " is documented but not registered";
    EXPECT_EQ(help, found->help.str()) << name;
  }
  for (const EnvironmentVariable &variable : environmentVariables())
    EXPECT_TRUE(documented.contains(variable.name))
        << variable.name.str() << " is registered but not in docs/runtime.md";
}

TEST(EnvironmentTest, NothingReadsTheEnvironmentAroundTheRegistry) {
  std::regex raw("\\bgetenv\\(|GetEnv\\(");
  for (llvm::StringRef folder : {"lib", "tools"}) {
    llvm::SmallString<256> root(PHOBOS_SOURCE_DIR);
    llvm::sys::path::append(root, folder);
    std::error_code error;
    for (llvm::sys::fs::recursive_directory_iterator it(root, error), end;
         it != end && !error; it.increment(error)) {
      llvm::StringRef path = it->path();
      if (!path.ends_with(".cpp") && !path.ends_with(".h") &&
          !path.ends_with(".c"))
        continue;
      // The registry itself, and the fuzzers (libFuzzer's own options).
      if (path.ends_with("Support/Environment.cpp") ||
          path.contains("phobos-fuzz"))
        continue;
      auto buffer = llvm::MemoryBuffer::getFile(path);
      ASSERT_TRUE(bool(buffer)) << path.str();
      std::string text = (*buffer)->getBuffer().str();
      EXPECT_FALSE(std::regex_search(text, raw))
          << path.str() << " reads the environment directly; use "
                           "phobos::getEnvironment (Support/Environment.h)";
    }
  }
}

TEST(EnvironmentTest, ExperimentsNameThemselvesAndRefuseBadValues) {
  llvm::Expected<Experiments> parsed = Experiments::parse(
      {"without=tile-pingpong,tile-defer-dots", "ptxas=-Ofc=min",
       "llvm-opt-level=3", "sync-dots=1", "fma-k-unroll=4",
       "assembler=ptxas"});
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  // The assembler leaves compiled code as it is: not in the version.
  EXPECT_EQ(parsed->versionLabel(),
            "+without:tile-pingpong,tile-defer-dots+ptxas:-Ofc=min+llvm-O3"
            "+fma-k-unroll:4+sync-dots:1");
  EXPECT_TRUE(parsed->ptxasProcess);
  EXPECT_EQ(Experiments().versionLabel(), "");
  for (auto [setting, message] :
       {std::pair{"llvm-opt-level=7",
                  "--experiment llvm-opt-level=7: llvm-opt-level takes 0 to 3"},
        {"sync-dots=yes", "--experiment sync-dots=yes: sync-dots takes 0 or 1"},
        {"fma-k-unroll=-1", "--experiment fma-k-unroll=-1: fma-k-unroll "
                            "takes a step count (0 or more)"},
        {"without=tile-nothing",
         "--experiment without=tile-nothing: without takes optional passes "
         "(tile-group-blocks, tile-persistent, tile-defer-dots, "
         "tile-warp-specialize, tile-pingpong, tile-unswitch-loops, "
         "tile-skip-full-masks, tile-fold-transposed-operands, "
         "tile-defer-lane-sums)"},
        {"verify-each=0", "--experiment verify-each=0: verify-each takes 1"},
        {"spill-relief=1", "--experiment spill-relief=1: spill-relief takes 0"}}) {
    llvm::Expected<Experiments> bad = Experiments::parse({setting});
    ASSERT_FALSE(bool(bad)) << setting;
    EXPECT_EQ(llvm::toString(bad.takeError()), message);
  }
  llvm::Expected<Experiments> unknown = Experiments::parse({"sync_dots=1"});
  ASSERT_FALSE(bool(unknown));
  EXPECT_NE(llvm::toString(unknown.takeError())
                .find("no experiment 'sync_dots' (there are: without, "),
            std::string::npos);
}

TEST(EnvironmentTest, AnUnregisteredNameIsAProgrammingError) {
  EXPECT_DEATH((void)getEnvironment("PHOBOS_NO_SUCH_VARIABLE"),
               "is not in Support/Environment.cpp's registry");
}

} // namespace
