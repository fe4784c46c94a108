// The bert trainer end to end as a user runs it: killed with SIGKILL after a checkpoint and
// resumed with --resume, it ends with the same bits as a run that was never interrupted; a
// checkpoint of another configuration or a damaged one is refused, naming the culprit.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <tessera/apps/Checkpoint.hpp>

#include "TempDir.hpp"
#include "data/Corpus.hpp"

namespace tessera::bert {
namespace {

namespace fs = std::filesystem;

/// A small model on FOLDOC: quick to build, and the vocabulary cache is shared between tests.
std::vector<std::string> smallRun(const fs::path &checkpoints) {
  return {TESSERA_BERT_BINARY,
          "--config=tiny",
          "--layers=1",
          "--hidden=32",
          "--heads=2",
          "--ffn=64",
          "--sequence-length=32",
          "--batch-size=4",
          "--steps=40",
          "--steps-per-run=2",
          "--checkpoint-every=4",
          "--evaluate-every=0",
          "--evaluation-batches=1",
          "--host-threads=2",
          "--vocab-dir=" + (fs::temp_directory_path() / "tessera-bert-test-vocab").string(),
          "--checkpoint-dir=" + checkpoints.string()};
}

/// Runs `args`, returning (exit status, combined output).
std::pair<int, std::string> runToEnd(std::vector<std::string> args) {
  std::string command;
  for (const auto &a : args)
    command += "'" + a + "' ";
  command += "2>&1";
  std::string out;
  FILE *p = ::popen(command.c_str(), "r");
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), p))
    out.append(buffer.data(), n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Starts `args` in the background with its output discarded.
pid_t start(const std::vector<std::string> &args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char *> argv;
    for (const auto &a : args)
      argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    std::freopen("/dev/null", "w", stdout);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

fs::path checkpointAt(const fs::path &dir, std::uint64_t step) {
  return dir / apps::checkpointFileName(step);
}

void expectSameState(const apps::CheckpointState &a, const apps::CheckpointState &b) {
  ASSERT_EQ(a.step, b.step);
  EXPECT_EQ(a.loaderPosition, b.loaderPosition);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    ASSERT_EQ(a.tensors[i].name, b.tensors[i].name);
    EXPECT_EQ(a.tensors[i].data, b.tensors[i].data) << a.tensors[i].name << " differs";
  }
  ASSERT_EQ(a.optimiserState.size(), b.optimiserState.size());
  for (std::size_t i = 0; i < a.optimiserState.size(); ++i)
    EXPECT_EQ(a.optimiserState[i].data, b.optimiserState[i].data) << a.optimiserState[i].name;
}

class BertTrainer : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fs::exists(kFoldocDictPath))
      GTEST_SKIP() << kFoldocDictPath << " missing (install dict-foldoc)";
  }
};

TEST_F(BertTrainer, KilledRunResumesBitExactly) {
  apps::testing::TempDir dir;
  const fs::path whole = dir / "whole", interrupted = dir / "interrupted";
  const auto [status, out] = runToEnd(smallRun(whole));
  ASSERT_EQ(status, 0) << out;

  const pid_t pid = start(smallRun(interrupted));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!fs::exists(checkpointAt(interrupted, 8)) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGKILL);
  int killed = 0;
  ::waitpid(pid, &killed, 0);
  ASSERT_TRUE(WIFSIGNALED(killed)) << "the run ended before it could be killed";
  ASSERT_FALSE(fs::exists(checkpointAt(interrupted, 40)));

  auto resume = smallRun(interrupted);
  resume.push_back("--resume");
  const auto [resumedStatus, resumedOut] = runToEnd(resume);
  ASSERT_EQ(resumedStatus, 0) << resumedOut;
  EXPECT_NE(resumedOut.find("resumed from"), std::string::npos) << resumedOut;
  expectSameState(apps::readCheckpoint(checkpointAt(whole, 40)),
                  apps::readCheckpoint(checkpointAt(interrupted, 40)));
}

TEST_F(BertTrainer, ResumeRefusesAnotherConfigurationAndDamagedCheckpoints) {
  apps::testing::TempDir dir;
  auto run = smallRun(dir.path());
  run[8] = "--steps=4"; // just one checkpoint, at the end
  const auto [status, out] = runToEnd(run);
  ASSERT_EQ(status, 0) << out;

  auto other = run;
  other[3] = "--hidden=64";
  other.push_back("--resume");
  const auto [otherStatus, otherOut] = runToEnd(other);
  EXPECT_NE(otherStatus, 0);
  EXPECT_NE(otherOut.find(apps::checkpointFileName(4)), std::string::npos) << otherOut;
  EXPECT_NE(otherOut.find("'hidden' is '32' in the checkpoint but '64'"), std::string::npos)
      << otherOut;

  // Flip a byte in the middle of the checkpoint's payload.
  const fs::path file = checkpointAt(dir.path(), 4);
  {
    std::FILE *f = std::fopen(file.c_str(), "r+b");
    std::fseek(f, static_cast<long>(fs::file_size(file) / 2), SEEK_SET);
    const int c = std::fgetc(f);
    std::fseek(f, -1, SEEK_CUR);
    std::fputc(c ^ 0x5a, f);
    std::fclose(f);
  }
  auto damaged = run;
  damaged.push_back("--resume");
  const auto [damagedStatus, damagedOut] = runToEnd(damaged);
  EXPECT_NE(damagedStatus, 0);
  EXPECT_NE(damagedOut.find(file.filename().string()), std::string::npos) << damagedOut;
  EXPECT_NE(damagedOut.find("corrupt"), std::string::npos) << damagedOut;
}

} // namespace
} // namespace tessera::bert
