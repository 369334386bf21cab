//===- EnvironmentTest.cpp - One registry of environment variables --------===//
//
// Every variable the tree reads is in the registry, the registry is the
// table of docs/runtime.md §11, and those that change compiled code name
// themselves in the compiler's version.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Environment.h"

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
  std::regex row("\\| `([A-Z_]+)` \\| ([^|]+) \\| ([^|\\n]+) \\|");
  std::string tail = docs.substr(section);
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), row);
       it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1], label = (*it)[2], help = (*it)[3];
    documented.insert(name);
    const EnvironmentVariable *found = nullptr;
    for (const EnvironmentVariable &variable : environmentVariables())
      if (variable.name == name)
        found = &variable;
    ASSERT_NE(found, nullptr) << name << " is documented but not registered";
    EXPECT_EQ(help, found->help.str()) << name;
    EXPECT_EQ(label, found->versionLabel.empty()
                         ? std::string("-")
                         : "`" + found->versionLabel.str() + "`")
        << name;
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

TEST(EnvironmentTest, CodeChangingVariablesNameThemselves) {
  ::unsetenv("PHOBOS_PTXAS_OPTIONS");
  ::unsetenv("PHOBOS_NO_NVJITLINK");
  std::string before = codeChangingEnvironment();
  ::setenv("PHOBOS_NO_NVJITLINK", "1", 1); // leaves compiled code as it is
  EXPECT_EQ(codeChangingEnvironment(), before);
  ::setenv("PHOBOS_PTXAS_OPTIONS", "-Ofc=min", 1);
  EXPECT_EQ(codeChangingEnvironment(), before + "+ptxas:-Ofc=min");
  ::unsetenv("PHOBOS_PTXAS_OPTIONS");
  ::unsetenv("PHOBOS_NO_NVJITLINK");
  EXPECT_EQ(getEnvironment("PHOBOS_PTXAS_OPTIONS"), std::nullopt);
}

TEST(EnvironmentTest, AnUnregisteredNameIsAProgrammingError) {
  EXPECT_DEATH((void)getEnvironment("PHOBOS_NO_SUCH_VARIABLE"),
               "is not in Support/Environment.cpp's registry");
}

} // namespace
