//===- OutputJournalTest.cpp - What a cluster job has stored --------------===//

#include "Phobos/ClusterRuntime/OutputJournal.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace phobos::storage;

namespace {

class OutputJournalTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phobos-journal", path));
    directory = std::string(path);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }
  std::string file(const std::string &name) { return directory + "/" + name; }
  std::string contentsOf(const std::string &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string directory;
};

JournalContents sample() {
  JournalContents contents;
  contents.key = "3f0c2a9e81d4b7c5";
  contents.bindings = {{"TILE_M", 128}, {"TILE_N", 64}};
  contents.partials = {{"C", "/data/dir with space/.c.tensor.phobos-x.partial"}};
  contents.stored.push_back({4, "C", {128, 0}, {128, 64}, 0x1d2e3f4a5b6c7d8eull});
  return contents;
}

TEST_F(OutputJournalTest, RoundTrips) {
  JournalContents contents = sample();
  std::string text = journalHeader(contents) + journalLine(contents.stored[0]);
  EXPECT_EQ(text, "PHOBOS-JOURNAL v1\n"
                  "key 3f0c2a9e81d4b7c5\n"
                  "bindings TILE_M=128 TILE_N=64\n"
                  "partial C /data/dir with space/.c.tensor.phobos-x.partial\n"
                  "stored 4 C 128,0 128,64 1d2e3f4a5b6c7d8e\n");
  absl::StatusOr<JournalContents> parsed = parseJournal(text, "j");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->key, contents.key);
  EXPECT_EQ(parsed->bindings, contents.bindings);
  EXPECT_EQ(parsed->partials, contents.partials);
  ASSERT_EQ(parsed->stored.size(), 1u);
  EXPECT_EQ(parsed->stored[0].id, 4u);
  EXPECT_EQ(parsed->stored[0].offsets, (std::vector<int64_t>{128, 0}));
  EXPECT_EQ(parsed->stored[0].shape, (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(parsed->stored[0].checksum, 0x1d2e3f4a5b6c7d8eull);
  EXPECT_FALSE(parsed->tornTail);
}

TEST_F(OutputJournalTest, ATornLastLineIsDropped) {
  JournalContents contents = sample();
  std::string text = journalHeader(contents) + journalLine(contents.stored[0]) +
                     "stored 5 C 128,64 12";
  absl::StatusOr<JournalContents> parsed = parseJournal(text, "j");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->stored.size(), 1u);
  EXPECT_TRUE(parsed->tornTail);
  // Nothing at all: a scheduler that died before writing one.
  parsed = parseJournal("", "j");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->key.empty());
}

TEST_F(OutputJournalTest, MistakesNameTheLine) {
  std::string header = journalHeader(sample());
  auto message = [](const std::string &text) {
    absl::StatusOr<JournalContents> parsed = parseJournal(text, "out.journal");
    return parsed.ok() ? std::string("ok")
                       : std::string(parsed.status().message());
  };
  EXPECT_EQ(message("hello\n"),
            "out.journal:1: not a Phobos journal (expected 'PHOBOS-JOURNAL "
            "v1', got 'hello')");
  EXPECT_EQ(message(header + "stored 4 C 128,0 128 1d2e3f4a5b6c7d8e\n"),
            "out.journal:5: expected 'stored ID TENSOR OFFSETS SHAPE CHECKSUM' "
            "(offsets and shape of one rank, 16 hex digits), got 'stored 4 C "
            "128,0 128 1d2e3f4a5b6c7d8e'");
  EXPECT_EQ(message(header + "stored 4 D 0,0 1,1 1d2e3f4a5b6c7d8e\n"),
            "out.journal:5: tensor 'D' has no 'partial' line before it");
  EXPECT_EQ(message(header + "sorted 4\n"),
            "out.journal:5: expected 'key', 'bindings', 'partial' or "
            "'stored', got 'sorted 4'");
  EXPECT_EQ(message("PHOBOS-JOURNAL v1\nkey 12\n"),
            "out.journal:2: expected 'key' and 16 hex digits, got 'key 12'");
  EXPECT_EQ(message("PHOBOS-JOURNAL v1\nbindings TILE_M=0\n"),
            "out.journal:2: expected NAME=SIZE with a positive size, got "
            "'TILE_M=0'");
  EXPECT_EQ(message("PHOBOS-JOURNAL v1\nbindings\n"),
            "out.journal:2: the journal has no 'key' line");
}

TEST_F(OutputJournalTest, LockedWhileOpenAndAppends) {
  std::string path = file("c.journal");
  absl::StatusOr<OutputJournal> journal = OutputJournal::lock(path);
  ASSERT_TRUE(journal.ok()) << journal.status();
  // A second scheduler on the same output is refused.
  absl::StatusOr<OutputJournal> second = OutputJournal::lock(path);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            "another phobos-sched is running a job with this output: it holds "
            "the lock on " + path);
  JournalContents contents = sample();
  ASSERT_TRUE(journal->rewrite(contents).ok());
  JournalTile more{7, "C", {0, 64}, {128, 64}, 42};
  ASSERT_TRUE(journal->append(more).ok());
  absl::StatusOr<JournalContents> read = journal->read();
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->stored.size(), 2u);
  EXPECT_EQ(read->stored[1].id, 7u);
  EXPECT_EQ(read->stored[1].checksum, 42u);
  // A rewrite replaces what was there.
  contents.stored.clear();
  ASSERT_TRUE(journal->rewrite(contents).ok());
  EXPECT_EQ(contentsOf(path), journalHeader(contents));
  journal->remove();
  EXPECT_FALSE(llvm::sys::fs::exists(path));
  // Released: the next one may lock it.
  EXPECT_TRUE(OutputJournal::lock(path).ok());
}

TEST_F(OutputJournalTest, OnlyARegularFile) {
  std::string path = file("dir.journal");
  ASSERT_FALSE(llvm::sys::fs::create_directory(path));
  absl::StatusOr<OutputJournal> journal = OutputJournal::lock(path);
  ASSERT_FALSE(journal.ok());
}

} // namespace
