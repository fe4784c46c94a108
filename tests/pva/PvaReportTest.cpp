// pva against independent references: the graph PvaTestGraph.hpp builds (tile, compute set,
// vertex and variable counts, the program order of each run), the engine's own tile memory
// figures, and the separate profile files read with tessera::profile's reader.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include <poplar/Version.hpp>
#include <pva/pva.hpp>
#include <tessera/profile/ProfileReader.hpp>

#include "PvaTestGraph.hpp"

using namespace pvatest;
namespace tp = tessera::profile;

namespace {

class PvaReport : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    directory_ = profiletest::freshDirectory("pva-report");
    tileMemoryUsed_ = profileGraph(directory_);
  }
  static std::string directory_;
  static std::vector<std::uint64_t> tileMemoryUsed_;
  std::string pop() const { return directory_ + "/profile.pop"; }
};
std::string PvaReport::directory_;
std::vector<std::uint64_t> PvaReport::tileMemoryUsed_;

/// Counts the programs of each type it visits.
struct CountingVisitor : pva::ProgramVisitor {
  std::map<std::string, unsigned> onTileExecute;
  unsigned exchanges = 0, streamsIn = 0, streamsOut = 0;
  void visitOnTileExecute(const pva::OnTileExecuteProgram &p) override {
    ++onTileExecute[p.computeset().name()];
  }
  void visitDoExchange(const pva::DoExchangeProgram &) override { ++exchanges; }
  void visitStreamCopyMid(const pva::StreamCopyMidProgram &p) override {
    ++(p.fromHost() ? streamsIn : streamsOut);
  }
};

/// The program names one run of Engine program `p` executes, in order.
std::vector<std::string> stepNames(unsigned p) {
  return p == 0 ? std::vector<std::string>{"x", "dense", "", "y"}
                : std::vector<std::string>{"halve"};
}

} // namespace

TEST_F(PvaReport, VersionIsTheSdkThatWroteIt) {
  const auto report = pva::openReport(pop());
  EXPECT_EQ(report.poplarVersion().string(), poplar::versionString());
  const std::string number = std::to_string(report.poplarVersion().major()) + "." +
                             std::to_string(report.poplarVersion().minor()) + "." +
                             std::to_string(report.poplarVersion().point());
  EXPECT_EQ(number, poplar::versionNumber());
}

TEST_F(PvaReport, TargetIsTheDeviceCompiledFor) {
  const Device device = profiletest::smallDevice(kTiles);
  const Target &t = device.getTarget();
  const auto target = pva::openReport(pop()).compilation().target();
  EXPECT_EQ(target.type(), pva::Target::Type::IPUModel);
  EXPECT_EQ(target.architecture(), t.getTargetArchString());
  EXPECT_EQ(target.numIPUs(), t.getNumIPUs());
  EXPECT_EQ(target.tilesPerIpu(), kTiles);
  EXPECT_EQ(target.numTiles(), t.getNumTiles());
  EXPECT_EQ(target.bytesPerTile(), t.getBytesPerTile());
  EXPECT_EQ(target.bytesPerIPU(), t.getBytesPerTile() * kTiles);
  EXPECT_EQ(target.totalMemory(), t.getBytesPerTile() * t.getNumTiles());
  EXPECT_DOUBLE_EQ(target.clockFrequency(), t.getTileClockFrequency());
}

TEST_F(PvaReport, GraphCountsAreWhatWasBuilt) {
  const auto graph = pva::openReport(pop()).compilation().graph();
  EXPECT_EQ(graph.numComputeSets(), kComputeSets);
  EXPECT_EQ(graph.numVertices(), kVertices);
  EXPECT_EQ(graph.numVars(), kVariables);
}

TEST_F(PvaReport, TileMemoryIsTheEnginesAndTheGraphProfiles) {
  const auto report = pva::openReport(pop());
  const auto graphProfile = tp::readGraphProfile(directory_ + "/graph_profile.pb");
  const auto &tiles = report.compilation().tiles();
  ASSERT_EQ(tiles.size(), kTiles);
  for (unsigned t = 0; t < kTiles; ++t) {
    SCOPED_TRACE("tile " + std::to_string(t));
    const auto &m = tiles[t].memory();
    const auto &expected = graphProfile.tiles[t];
    EXPECT_EQ(tiles[t].number(), t);
    EXPECT_EQ(m.total().includingGaps(), tileMemoryUsed_[t]);
    EXPECT_EQ(m.total().excludingGaps(), tileMemoryUsed_[t] - expected.padding);
    EXPECT_EQ(m.variables(), expected.variables);
    EXPECT_EQ(m.vertexState(), expected.vertexState);
    EXPECT_EQ(m.exchange(), expected.exchange);
    EXPECT_EQ(m.gaps(), expected.padding);
    EXPECT_EQ(m.variables() + m.vertexState() + m.exchange() + m.gaps(), m.total().includingGaps());
  }
}

TEST_F(PvaReport, ProgramsAreTheStepsThatDoWork) {
  const auto report = pva::openReport(pop());
  const auto graphProfile = tp::readGraphProfile(directory_ + "/graph_profile.pb");
  const auto &programs = report.compilation().programs();
  ASSERT_EQ(programs.size(), 5u); // 2 compute sets, 1 exchange, 2 stream copies
  CountingVisitor visitor;
  for (const auto &p : programs) {
    p->accept(visitor);
    EXPECT_TRUE(p->children().empty());
    const auto &step = graphProfile.steps.at(p->id());
    EXPECT_EQ(p->name(), step.name);
    EXPECT_EQ(p->estimatedCycles(), step.estimatedCycles);
    EXPECT_EQ(p->exchangeBytes(), step.exchangeBytes);
    if (p->type() == pva::Program::Type::OnTileExecute) {
      const auto &cs = static_cast<const pva::OnTileExecuteProgram &>(*p).computeset();
      EXPECT_EQ(cs.name(), p->name());
      ASSERT_EQ(cs.vertices().size(), 1u); // one vertex type per compute set
      EXPECT_EQ(cs.vertices()[0].count(), kTiles);
      EXPECT_EQ(cs.vertices()[0].type().name(),
                cs.name() == "dense" ? "profiletest::DenseRow" : "profiletest::HalveNoEstimate");
      EXPECT_EQ(cs.numVertices(), kTiles);
      EXPECT_EQ(cs.numTiles(), kTiles);
    }
  }
  EXPECT_EQ(visitor.onTileExecute, (std::map<std::string, unsigned>{{"dense", 1}, {"halve", 1}}));
  EXPECT_EQ(visitor.exchanges, 1u);
  EXPECT_EQ(visitor.streamsIn, 1u);
  EXPECT_EQ(visitor.streamsOut, 1u);
}

TEST_F(PvaReport, StepsFollowEachRunInOrderOnOneCycleClock) {
  const auto report = pva::openReport(pop());
  const auto steps = report.execution().steps();
  std::vector<std::string> names, expected;
  for (unsigned p : kRunPrograms)
    for (const auto &n : stepNames(p))
      expected.push_back(n);
  std::uint64_t clock = 0, sum = 0;
  for (const auto &s : steps) {
    names.push_back(s.program()->type() == pva::Program::Type::DoExchange ? ""
                                                                          : s.program()->name());
    EXPECT_EQ(s.cyclesFrom().max(), clock);
    EXPECT_EQ(s.cyclesTo().min(), clock + s.program()->estimatedCycles());
    EXPECT_EQ(s.cycles(), s.program()->estimatedCycles());
    const auto ipus = s.ipus();
    ASSERT_EQ(ipus.size(), 1u);
    EXPECT_EQ(ipus[0].ipu(), 0u);
    EXPECT_EQ(ipus[0].cycles(), s.cycles());
    EXPECT_EQ(ipus[0].cyclesFrom(), clock);
    clock = s.cyclesTo().max();
    sum += ipus[0].cycles();
  }
  EXPECT_EQ(names, expected);
  EXPECT_GT(sum, 0u);
  EXPECT_EQ(sum, report.execution().totalCycles());
  const auto exec = tp::readExecutionProfile(directory_ + "/execution_profile.pb");
  EXPECT_EQ(report.execution().totalCycles(), exec.totalEstimatedCycles);
  EXPECT_EQ(report.execution().totalHostNanoseconds(), exec.totalHostNs);
  EXPECT_TRUE(report.execution().instrumented()); // autoReport.all measures host time
  EXPECT_FALSE(report.execution().stepsTruncated());
}

TEST_F(PvaReport, RunsAreTheEngineRunCalls) {
  const auto execution = pva::openReport(pop()).execution();
  const auto runs = execution.runs();
  EXPECT_EQ(execution.numRuns(), kRunPrograms.size());
  ASSERT_EQ(runs.size(), kRunPrograms.size());
  EXPECT_FALSE(execution.runsTruncated());
  std::uint64_t clock = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    EXPECT_EQ(runs[i].program(), kRunPrograms[i]);
    const auto steps = runs[i].steps();
    EXPECT_EQ(steps.size(), stepNames(kRunPrograms[i]).size());
    EXPECT_EQ(runs[i].cyclesFrom(), clock);
    const std::uint64_t stepCycles = std::accumulate(
        steps.begin(), steps.end(), std::uint64_t{0},
        [](std::uint64_t a, const pva::ExecutionStep &s) { return a + s.cycles(); });
    EXPECT_EQ(runs[i].cycles(), stepCycles);
    EXPECT_EQ(runs[i].cyclesTo(), clock + stepCycles);
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(steps.front().cyclesFrom().min(), clock);
    clock = runs[i].cyclesTo();
  }
  EXPECT_EQ(clock, execution.totalCycles());
  // Both runs of program 0 cost the same.
  EXPECT_EQ(runs[0].cycles(), runs[2].cycles());
}

TEST_F(PvaReport, OpensTheReportDirectoryToo) {
  const auto fromDirectory = pva::openReport(directory_);
  EXPECT_EQ(fromDirectory.compilation().graph().numComputeSets(), kComputeSets);
  EXPECT_EQ(fromDirectory.execution().steps().size(),
            pva::openReport(pop()).execution().steps().size());
}

TEST_F(PvaReport, ObjectsOutliveTheirReport) {
  std::vector<pva::ExecutionStep> steps;
  std::shared_ptr<pva::Program> first;
  {
    const auto report = pva::openReport(pop());
    steps = report.execution().steps();
    first = report.compilation().programs().front();
  }
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front().program()->name(), "x");
  EXPECT_EQ(first->name(), "x");
}

TEST(PvaReportBeforeRun, HoldsTheCompilationAndNoExecution) {
  const std::string dir = profiletest::freshDirectory("pva-before-run");
  profileGraph(dir, /*run=*/false);
  const auto report = pva::openReport(dir + "/profile.pop");
  EXPECT_EQ(report.compilation().graph().numComputeSets(), kComputeSets);
  EXPECT_EQ(report.compilation().tiles().size(), kTiles);
  EXPECT_TRUE(report.execution().steps().empty());
  EXPECT_TRUE(report.execution().runs().empty());
  EXPECT_EQ(report.execution().totalCycles(), 0u);
}
