// Profiles of real graphs: the matrix-vector example and a 2-layer MLP training step; profile
// files, the summary, the CLI and error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <MatVec.hpp>
#include <poplar/exceptions.hpp>
#include <tessera/profile/ProfileReader.hpp>

#include "ProfileTestGraphs.hpp"

using namespace profiletest;
namespace tp = tessera::profile;

namespace {

/// Sets POPLAR_ENGINE_OPTIONS for the lifetime of the object.
struct EngineOptionsEnv {
  explicit EngineOptionsEnv(const std::string &json) {
    ::setenv("POPLAR_ENGINE_OPTIONS", json.c_str(), 1);
  }
  ~EngineOptionsEnv() { ::unsetenv("POPLAR_ENGINE_OPTIONS"); }
};

/// Runs the matrix-vector example with every report on; returns the report directory.
std::string profileMatVec(std::size_t rows, std::size_t cols, const std::string &name) {
  const std::string dir = freshDirectory(name);
  EngineOptionsEnv env(R"({"autoReport.all":"true","autoReport.directory":")" + dir + "\"}");
  Device device = smallDevice(4);
  std::vector<float> a(rows * cols, 1.0f), x(cols, 2.0f);
  const auto y = matvec::multiply(device, rows, cols, a, x, 2);
  EXPECT_EQ(y.at(0), 2.0f * static_cast<float>(cols));
  return dir;
}

std::string runCommand(const std::string &command, int &status) {
  std::string out;
  FILE *p = ::popen((command + " 2>&1").c_str(), "r");
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p))
    out.append(buf, n);
  status = ::pclose(p);
  return out;
}

} // namespace

TEST(ProfileFiles, MatrixVectorExampleWritesBothProfiles) {
  const std::size_t rows = 8, cols = 16;
  const std::string dir = profileMatVec(rows, cols, "matvec");
  const auto g = tp::readGraphProfile(dir + "/graph_profile.pb");
  ASSERT_EQ(g.computeSets.size(), 1u);
  EXPECT_EQ(g.computeSets[0].name, "dotProducts");
  EXPECT_EQ(g.computeSets[0].vertices, rows);
  // Hand count: x (16 floats) is small enough that mapTensorLinearly keeps it on tile 0, so
  // each of the 3 other tiles receives x once, shared by its row vertices.
  const auto xVar = std::find_if(g.variables.begin(), g.variables.end(),
                                 [](const tp::Variable &v) { return v.name == "x"; });
  ASSERT_NE(xVar, g.variables.end());
  ASSERT_EQ(xVar->tiles, 1u);
  EXPECT_EQ(g.computeSets[0].exchangeBytes, 3 * cols * 4);
  std::uint64_t variableBytes = 0;
  for (const auto &t : g.tiles)
    variableBytes += t.variables;
  EXPECT_EQ(variableBytes, (rows * cols + cols + rows) * 4);
  // Steps: stream in matrix, stream in x, execute, stream out y (+ End).
  std::vector<std::string> kinds;
  for (const auto &s : g.steps)
    kinds.push_back(s.kind);
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"StreamIn", "StreamIn", "Execute", "StreamOut", "End"}));
  EXPECT_EQ(g.steps[0].exchangeBytes, rows * cols * 4);

  const auto e = tp::readExecutionProfile(dir + "/execution_profile.pb");
  EXPECT_EQ(e.runs, 1u);
  EXPECT_TRUE(e.instrumented);
  ASSERT_EQ(e.steps.size(), 4u);
  EXPECT_EQ(e.timeline.size(), 4u);
  EXPECT_EQ(e.totalEstimatedCycles, g.steps[0].estimatedCycles + g.steps[1].estimatedCycles +
                                        g.steps[2].estimatedCycles + g.steps[3].estimatedCycles);
  EXPECT_TRUE(std::filesystem::exists(dir + "/graph_profile.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/report.html"));
  std::ifstream json(dir + "/graph_profile.json");
  std::stringstream text;
  text << json.rdbuf();
  EXPECT_NE(text.str().find("\"dotProducts\""), std::string::npos);
}

TEST(ProfileFiles, ProfilePopHoldsBothProfilesAndNoTemporaryFileRemains) {
  const std::string dir = profileMatVec(8, 16, "profile-pop");
  const auto g = tp::readGraphProfile(dir + "/graph_profile.pb");
  const auto e = tp::readExecutionProfile(dir + "/execution_profile.pb");
  const auto pop = tp::readProfileReport(dir + "/" + tp::kProfilePopFile);
  EXPECT_EQ(tp::toJson(pop.graph), tp::toJson(g));
  ASSERT_TRUE(pop.execution.has_value());
  EXPECT_EQ(tp::toJson(*pop.execution), tp::toJson(e));
  // One run of program 0: every timeline event is its.
  ASSERT_EQ(e.programRuns.size(), 1u);
  EXPECT_EQ(e.programRuns[0].program, 0u);
  EXPECT_EQ(e.programRuns[0].firstEvent, 0u);
  EXPECT_EQ(e.programRuns[0].events, e.timeline.size());
  EXPECT_EQ(e.programRuns[0].cycles, e.totalEstimatedCycles);
  // Files are written under a temporary name and renamed into place.
  std::vector<std::string> names;
  for (const auto &f : std::filesystem::directory_iterator(dir))
    names.push_back(f.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"execution_profile.json", "execution_profile.pb",
                                             "graph_profile.json", "graph_profile.pb",
                                             "profile.pop", "report.html"}));
}

TEST(ProfileFiles, LargerMatrixVectorCostsMore) {
  const auto small = tp::readGraphProfile(profileMatVec(8, 16, "mv-small") + "/graph_profile.pb");
  const auto large = tp::readGraphProfile(profileMatVec(16, 32, "mv-large") + "/graph_profile.pb");
  EXPECT_GT(large.computeSets[0].computeCycles, small.computeSets[0].computeCycles);
  EXPECT_GT(large.computeSets[0].totalCycles(), small.computeSets[0].totalCycles());
  // Each tile off tile 0 receives x once, whatever its number of rows: twice the columns.
  EXPECT_EQ(large.computeSets[0].exchangeBytes, 2 * small.computeSets[0].exchangeBytes);
}

TEST(ProfileSummary, MlpSummaryNamesComputeSetsAndMemoryAddsUp) {
  Device device = smallDevice(4);
  Mlp mlp(device.getTarget());
  Engine engine(mlp.graph, mlp.program, {{"debug.instrument", "true"}});
  engine.load(device);
  engine.run(0);
  engine.run(0);
  const auto g = engine.getGraphProfile();
  ASSERT_EQ(g.computeSets.size(), 3u);
  EXPECT_EQ(g.computeSets[0].name, "layer1/fwd");
  EXPECT_EQ(g.computeSets[1].name, "layer2/fwd");
  EXPECT_EQ(g.computeSets[2].name, "layer2/update");
  EXPECT_EQ(g.computeSets[0].exchangeBytes, Mlp::kLayer1ExchangeBytes);
  EXPECT_EQ(g.computeSets[1].exchangeBytes, Mlp::kLayer2ExchangeBytes);
  EXPECT_EQ(g.computeSets[2].exchangeBytes, 0u);
  ASSERT_EQ(g.tiles.size(), 4u);
  std::uint64_t variables = 0;
  for (unsigned t = 0; t < 4; ++t) {
    EXPECT_EQ(g.tiles[t].total(), engine.getTileMemoryUsed(t)) << "tile " << t;
    variables += g.tiles[t].variables;
  }
  EXPECT_EQ(variables, Mlp::kVariableBytes);
  EXPECT_GT(g.tiles[1].exchange, 0u); // tiles 1..3 hold copies of x and h
  EXPECT_TRUE(g.hasVertexTypeEstimates);

  const auto e = engine.getExecutionProfile();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->runs, 2u);
  ASSERT_EQ(e->steps.size(), 3u);
  EXPECT_EQ(e->steps[0].runs, 2u);

  std::ostringstream summary;
  engine.printProfileSummary(summary, {{"showExecutionSteps", "true"}});
  const std::string s = summary.str();
  for (const char *want : {"Target:", "ipu2", "layer1/fwd", "layer2/fwd", "layer2/update",
                           "Vertex State", "Exchange Buffers", "layer1/weights", "Execution steps",
                           "ran 2x", "352 bytes over all steps"})
    EXPECT_NE(s.find(want), std::string::npos) << want << " missing from:\n" << s;
  std::ostringstream brief;
  engine.printProfileSummary(brief);
  EXPECT_EQ(brief.str().find("Execution steps"), std::string::npos);
}

// Poplar's printProfileSummary prints the sections "Target:", "Graph:", "Memory Usage:" and
// "Execution:" in that order, each a heading at column 0 followed by indented "Label: value"
// lines with comma-grouped numbers (e.g. "Number of IPUs:", "Tiles per IPU:", "Number of
// vertices:", "Including Gaps:", "By Tile (Excluding Gaps):", "Total cycles:"), as shown in
// Graphcore's TensorFlow IPU guide and Poplar tutorial 6. Scripts grep those names.
TEST(ProfileSummary, SectionsFollowPoplarsNamesAndOrder) {
  Device device = smallDevice(4);
  Mlp mlp(device.getTarget());
  Engine engine(mlp.graph, mlp.program, {{"debug.instrument", "true"}}); // record execution
  engine.load(device);
  engine.run(0);
  std::ostringstream summary;
  engine.printProfileSummary(summary);
  const std::string s = summary.str();
  std::vector<std::string> headings;
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != ' ')
      headings.push_back(line);
  EXPECT_EQ(headings,
            (std::vector<std::string>{"Target:", "Graph:", "Memory Usage:", "Execution:"}))
      << s;
  std::size_t at = 0;
  for (const char *want :
       {"  Number of IPUs:         1\n", "  Tiles per IPU:          4\n",
        "  Total Tiles:            4\n", "  Memory Per-Tile:        624.0 kB\n",
        "  Clock Speed (approx):   1,330.0 MHz\n", "  Number of vertices:",
        "  Number of compute sets:", "  Total:\n    Including Gaps:", "    Excluding Gaps:\n",
        "  By Tile (Excluding Gaps):\n", "    Maximum (Including Gaps): ",
        "    Maximum (Excluding Gaps): ", "    0 tile(s) out of memory\n", "  Total cycles:"}) {
    const std::size_t found = s.find(want, at);
    ASSERT_NE(found, std::string::npos) << "'" << want << "' missing or out of order in:\n" << s;
    at = found;
  }
}

TEST(ProfileSummary, UnknownSummaryOptionIsRejectedWithTheNearestName) {
  Device device = smallDevice(4);
  Mlp mlp(device.getTarget());
  Engine engine(mlp.graph, mlp.program);
  std::ostringstream out;
  try {
    engine.printProfileSummary(out, {{"showExecutionStep", "true"}});
    FAIL() << "expected invalid_option";
  } catch (const poplar::invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("showExecutionSteps"), std::string::npos) << e.what();
  }
  EXPECT_THROW(engine.printProfileSummary(out, {{"showExecutionSteps", "yes"}}),
               poplar::invalid_option);
}

TEST(ProfileFiles, OutOfMemoryStillWritesTheGraphProfile) {
  IPUModel model;
  model.tilesPerIPU = 2;
  model.memoryBytesPerTile = 4096;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  Tensor big = graph.addVariable(FLOAT, {2048}, "tooBig");
  graph.setTileMapping(big, 1);
  const std::string dir = freshDirectory("oom");
  EXPECT_THROW(Engine(graph, Sequence{},
                      {{"autoReport.outputGraphProfile", "true"}, {"autoReport.directory", dir}}),
               poplar::graph_memory_allocation_error);
  const auto g = tp::readGraphProfile(dir + "/graph_profile.pb");
  EXPECT_TRUE(g.outOfMemory);
  EXPECT_NE(g.error.find("tile 1"), std::string::npos) << g.error;
  EXPECT_EQ(g.tiles.at(1).variables, 2048u * 4);
  EXPECT_EQ(g.variables.at(0).name, "tooBig");
  std::ostringstream s;
  tp::printSummary(s, g, nullptr);
  EXPECT_NE(s.str().find("OUT OF MEMORY"), std::string::npos);
}

TEST(ProfileFiles, CorruptOrMissingProfileRaisesParseErrorNamingTheFile) {
  const std::string dir = freshDirectory("corrupt");
  const std::string path = dir + "/graph_profile.pb";
  std::ofstream(path) << "this is not a protocol buffer \xff\xff\xff";
  try {
    tp::readGraphProfile(path);
    FAIL() << "expected parse_error";
  } catch (const poplar::parse_error &e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(tp::readExecutionProfile(dir + "/missing.pb"), poplar::parse_error);
}

TEST(ProfileFiles, JsonRoundTripKeepsTheFields) {
  tp::GraphProfile g;
  g.target.arch = "ipu2";
  g.computeSets.push_back({});
  g.computeSets[0].name = "cs";
  g.computeSets[0].computeCycles = 123;
  const std::string dir = freshDirectory("roundtrip");
  tp::writeGraphProfile(g, dir + "/g.pb");
  const auto back = tp::readGraphProfile(dir + "/g.pb");
  EXPECT_EQ(back.computeSets.at(0).name, "cs");
  EXPECT_EQ(back.computeSets.at(0).computeCycles, 123u);
  EXPECT_NE(tp::toJson(back).find("\"compute_cycles\": \"123\""), std::string::npos)
      << tp::toJson(back);
}

TEST(ProfileCli, SummaryTopMemoryDiffAndHelp) {
  const std::string a = profileMatVec(8, 16, "cli-a");
  const std::string b = profileMatVec(8, 32, "cli-b");
  const std::string cli = TESSERA_PROFILE_CLI;
  int status = 0;
  std::string out = runCommand(cli + " --help", status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("summary"), std::string::npos);
  out = runCommand(cli + " summary " + a + " --steps", status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("dotProducts"), std::string::npos) << out;
  EXPECT_NE(out.find("Execution steps"), std::string::npos) << out;
  out = runCommand(cli + " top " + a + " -n 1", status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("1. dotProducts"), std::string::npos) << out;
  out = runCommand(cli + " memory " + a, status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("vertexState"), std::string::npos) << out;
  out = runCommand(cli + " diff " + a + " " + b, status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("dotProducts exchange bytes"), std::string::npos) << out;
  // x grows by 16 floats, received once by each of the 3 tiles off tile 0: 3 × 64 B.
  EXPECT_NE(out.find("(+192)"), std::string::npos) << out;
  // autoReport.all measures host time too: the breakdown and the trace have the step.
  out = runCommand(cli + " breakdown " + a, status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("by kind:"), std::string::npos) << out;
  EXPECT_NE(out.find("dotProducts"), std::string::npos) << out;
  const std::string trace = freshDirectory("cli-trace") + "/trace.json";
  out = runCommand(cli + " trace " + a + " -o " + trace, status);
  EXPECT_EQ(status, 0) << out;
  std::ifstream traceFile(trace);
  std::string traceText((std::istreambuf_iterator<char>(traceFile)),
                        std::istreambuf_iterator<char>());
  EXPECT_NE(traceText.find("\"name\":\"dotProducts\""), std::string::npos) << traceText;
  out = runCommand(cli + " trace " + a, status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("give the trace file with -o"), std::string::npos) << out;
  const std::string bad = freshDirectory("cli-bad") + "/graph_profile.pb";
  std::ofstream(bad) << "garbage";
  out = runCommand(cli + " summary " + bad, status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find(bad), std::string::npos) << out;
}
