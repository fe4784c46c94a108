// tessera-bench compare's baseline: resolving a VERSION or revision to a commit, and the git
// worktree it is built in, on a small repository made here (three commits: VERSION 0.1.0, an
// unrelated change, VERSION 0.2.0).
#include "TempDir.hpp"

#include <BaselineBuild.hpp>
#include <BaselineRevision.hpp>
#include <Git.hpp>

#include <tessera/apps/Errors.hpp>

#include <gtest/gtest.h>

#include <fstream>

using namespace tessera;
using namespace tessera::bench;
using tessera::apps::testing::TempDir;

namespace {

void writeFile(const std::filesystem::path &file, const std::string &text) {
  std::ofstream(file) << text;
}

std::string readFile(const std::filesystem::path &file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class FakeRepo : public ::testing::Test {
protected:
  void SetUp() override {
    run({"init", "-q", "-b", "main"});
    writeFile(repo() / "VERSION", "0.1.0\n");
    writeFile(repo() / "a.txt", "one\n");
    first = commit("release 0.1.0");
    writeFile(repo() / "a.txt", "two\n");
    middle = commit("work after 0.1.0");
    writeFile(repo() / "VERSION", "0.2.0\n");
    last = commit("release 0.2.0");
  }

  std::filesystem::path repo() const { return dir.path() / "repo"; }

  std::string run(const std::vector<std::string> &args) {
    std::filesystem::create_directories(repo());
    // The identity and signing settings of whoever runs the tests must not matter.
    std::vector<std::string> all = {
        "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"};
    all.insert(all.end(), args.begin(), args.end());
    return gitOrThrow(repo(), all, "setting up the test repository");
  }

  std::string commit(const std::string &message) {
    run({"add", "-A"});
    run({"commit", "-q", "-m", message});
    return run({"rev-parse", "HEAD"});
  }

  static apps::BenchmarkRecord record(const std::string &version, const std::string &commit) {
    apps::BenchmarkRecord r;
    r.set_sdk_version(version);
    r.set_git_commit(commit.substr(0, 7));
    return r;
  }

  TempDir dir;
  std::string first, middle, last;
};

} // namespace

TEST_F(FakeRepo, VersionWithoutRecordsIsTheFirstCommitWhoseVersionFileHoldsIt) {
  const ResolvedBaseline a = resolveBaseline("0.1.0", repo(), {});
  EXPECT_EQ(a.commit, first);
  EXPECT_EQ(a.version, "0.1.0");
  EXPECT_EQ(a.label, "0.1.0");
  EXPECT_EQ(a.shortCommit, first.substr(0, 12));
  EXPECT_NE(a.rule.find("first commit whose VERSION file holds 0.1.0"), std::string::npos)
      << a.rule;
  const ResolvedBaseline b = resolveBaseline("0.2.0", repo(), {});
  EXPECT_EQ(b.commit, last);
  EXPECT_EQ(b.version, "0.2.0");
}

TEST_F(FakeRepo, VersionWithRecordsIsTheLatestCommitTheyName) {
  // Named newest-first and with another version's record mixed in: history decides.
  const ResolvedBaseline r = resolveBaseline(
      "0.1.0", repo(), {record("0.1.0", middle), record("0.2.0", last), record("0.1.0", first)});
  EXPECT_EQ(r.commit, middle);
  EXPECT_EQ(r.version, "0.1.0");
  EXPECT_NE(r.rule.find(first.substr(0, 7)), std::string::npos) << r.rule;
  EXPECT_NE(r.rule.find("latest of them in history"), std::string::npos) << r.rule;
}

TEST_F(FakeRepo, RecordsNamingCommitsOutsideTheRepositoryFallBackToTheVersionFile) {
  const ResolvedBaseline r = resolveBaseline("0.1.0", repo(), {record("0.1.0", "deadbee")});
  EXPECT_EQ(r.commit, first);
  EXPECT_NE(r.rule.find("deadbee"), std::string::npos) << r.rule;
}

TEST_F(FakeRepo, RevisionsResolveThroughGit) {
  const ResolvedBaseline r = resolveBaseline("HEAD~1", repo(), {});
  EXPECT_EQ(r.commit, middle);
  EXPECT_EQ(r.label, "HEAD~1");
  EXPECT_EQ(r.version, "0.1.0");
  EXPECT_EQ(resolveBaseline(first.substr(0, 9), repo(), {}).commit, first);
  EXPECT_EQ(resolveBaseline("main", repo(), {}).commit, last);
}

TEST_F(FakeRepo, UnknownBaselineErrorNamesIt) {
  for (const std::string name : {"no-such-branch", "7.7.7", "--all"}) {
    try {
      resolveBaseline(name, repo(), {});
      FAIL() << name << " resolved";
    } catch (const apps::cli_error &e) {
      EXPECT_NE(std::string(e.what()).find("unknown baseline '" + name + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(repo().string()), std::string::npos) << e.what();
    }
  }
}

TEST_F(FakeRepo, WorktreeIsCreatedThenReused) {
  const auto baselines = dir.path() / "build" / "bench-baselines";
  const Worktree created = ensureWorktree(repo(), first, first.substr(0, 12), baselines);
  EXPECT_FALSE(created.reused);
  EXPECT_EQ(created.path, baselines / first.substr(0, 12));
  EXPECT_EQ(readFile(created.path / "VERSION"), "0.1.0\n");
  EXPECT_EQ(gitOrThrow(created.path, {"rev-parse", "HEAD"}, "test"), first);
  EXPECT_NE(gitOrThrow(repo(), {"worktree", "list"}, "test").find(created.path.string()),
            std::string::npos);

  // A build left inside survives reuse.
  writeFile(created.path / "build-marker", "kept");
  const Worktree again = ensureWorktree(repo(), first, first.substr(0, 12), baselines);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.path, created.path);
  EXPECT_EQ(readFile(again.path / "build-marker"), "kept");

  // The same directory at another commit is moved there, not reused.
  const Worktree moved = ensureWorktree(repo(), last, first.substr(0, 12), baselines);
  EXPECT_FALSE(moved.reused);
  EXPECT_EQ(readFile(moved.path / "VERSION"), "0.2.0\n");
}

TEST_F(FakeRepo, WorktreeRemovedByHandIsRecreated) {
  const auto baselines = dir.path() / "baselines";
  const Worktree created = ensureWorktree(repo(), middle, "m", baselines);
  std::filesystem::remove_all(created.path);
  const Worktree again = ensureWorktree(repo(), middle, "m", baselines);
  EXPECT_FALSE(again.reused);
  EXPECT_EQ(readFile(again.path / "a.txt"), "two\n");
}

TEST_F(FakeRepo, DirectoryThatIsNoWorktreeIsNamed) {
  const auto baselines = dir.path() / "baselines";
  std::filesystem::create_directories(baselines / "x");
  try {
    ensureWorktree(repo(), first, "x", baselines);
    FAIL() << "a plain directory was taken as a worktree";
  } catch (const apps::app_error &e) {
    EXPECT_NE(std::string(e.what()).find((baselines / "x").string()), std::string::npos)
        << e.what();
  }
}

TEST(BenchBaseline, SuiteKnowledgeAndSourceOfABuild) {
  TempDir dir;
  EXPECT_FALSE(baselineSuiteKnows(dir.path(), "x").has_value());
  std::filesystem::create_directories(dir.path() / "apps" / "bench");
  writeFile(dir.path() / "apps" / "bench" / "BenchSuite.cpp", "{\"resnet50-throughput\", ...}");
  EXPECT_EQ(baselineSuiteKnows(dir.path(), "resnet50-throughput"), true);
  EXPECT_EQ(baselineSuiteKnows(dir.path(), "resnet50"), false);

  writeFile(dir.path() / "CMakeCache.txt", "X:STRING=1\nCMAKE_HOME_DIRECTORY:INTERNAL=/src/tree\n");
  EXPECT_EQ(sourceDirOfBuild(dir.path()), std::filesystem::path("/src/tree"));
  EXPECT_FALSE(sourceDirOfBuild(dir.path() / "none").has_value());
}
