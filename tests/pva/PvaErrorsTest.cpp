// openReport's error paths: each throws poplar::parse_error (a poplar_error) naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <poplar/exceptions.hpp>
#include <pva/pva.hpp>
#include <tessera/profile/ProfileReader.hpp>

#include "PvaTestGraph.hpp"

namespace tp = tessera::profile;

namespace {

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// openReport(path) throws parse_error whose message names `named` and contains `also`.
void expectParseError(const std::string &path, const std::string &named,
                      const std::string &also = "") {
  try {
    pva::openReport(path);
    FAIL() << "openReport('" << path << "') did not throw";
  } catch (const poplar::parse_error &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(named), std::string::npos) << m;
    EXPECT_NE(m.find(also), std::string::npos) << m;
  }
}

class PvaErrors : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    directory_ = profiletest::freshDirectory("pva-errors");
    pvatest::profileGraph(directory_);
  }
  static std::string directory_;
  std::string good() const { return directory_ + "/profile.pop"; }
  std::string scratch(const std::string &name) const { return directory_ + "/" + name; }
};
std::string PvaErrors::directory_;

} // namespace

TEST_F(PvaErrors, MissingFileIsNamed) {
  expectParseError(scratch("no-such.pop"), scratch("no-such.pop"), "cannot open");
}

TEST_F(PvaErrors, DirectoryWithoutProfilePopNamesTheFileLookedFor) {
  const std::string empty = scratch("empty-dir");
  std::filesystem::create_directories(empty);
  expectParseError(empty, empty + "/profile.pop");
}

TEST_F(PvaErrors, CorruptFileIsNamed) {
  const std::string path = scratch("corrupt.pop");
  writeBytes(path, std::string("\xff\xff\xff\xff this is not a profile", 27));
  expectParseError(path, path, "not a valid");
}

TEST_F(PvaErrors, TruncatedFileIsNamed) {
  const std::string bytes = readBytes(good());
  ASSERT_GT(bytes.size(), 100u);
  const std::string path = scratch("truncated.pop");
  writeBytes(path, bytes.substr(0, bytes.size() / 2));
  expectParseError(path, path, "not a valid");
}

TEST_F(PvaErrors, AnotherProfileFileIsNotAReport) {
  // An execution profile parses as a message but holds no graph profile.
  expectParseError(directory_ + "/execution_profile.pb", directory_ + "/execution_profile.pb",
                   "graph profile is missing");
}

TEST_F(PvaErrors, EmptyFileIsNamed) {
  const std::string path = scratch("empty.pop");
  writeBytes(path, "");
  expectParseError(path, path);
}

TEST_F(PvaErrors, TimelineNamingAStepThatDoesNotExistIsCorrupt) {
  auto report = tp::readProfileReport(good());
  ASSERT_TRUE(report.execution);
  report.execution->timeline.at(1).step = static_cast<unsigned>(report.graph.steps.size() + 7);
  const std::string path = scratch("bad-step.pop");
  tp::writeProfileReport(report.graph, &*report.execution, path);
  expectParseError(path, path, "timeline event 1");
}

TEST_F(PvaErrors, RunBeyondTheTimelineIsCorrupt) {
  auto report = tp::readProfileReport(good());
  ASSERT_TRUE(report.execution);
  report.execution->programRuns.at(2).events = report.execution->timeline.size() + 1;
  const std::string path = scratch("bad-run.pop");
  tp::writeProfileReport(report.graph, &*report.execution, path);
  expectParseError(path, path, "run 2");
}

TEST_F(PvaErrors, ExecuteOfAComputeSetThatDoesNotExistIsCorrupt) {
  auto report = tp::readProfileReport(good());
  for (auto &s : report.graph.steps)
    if (s.kind == "Execute")
      s.computeSet = 99;
  const std::string path = scratch("bad-compute-set.pop");
  tp::writeProfileReport(report.graph, nullptr, path);
  expectParseError(path, path, "compute set 99");
}
