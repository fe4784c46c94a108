// Engine options: the option table rejects unknown keys (suggesting the nearest) and bad
// values, accepts Poplar's documented options, and POPLAR_ENGINE_OPTIONS overrides them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

/// Sets an environment variable for the scope, restoring the previous value afterwards.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

/// A tiny graph: x (3 floats, tile 1) *= 2.
struct Doubler {
  Device device = enginetest::smallDevice(4);
  Graph graph{device.getTarget()};
  ComputeSet cs;
  Doubler() {
    testvertices::registerTestVertices();
    Tensor x = graph.addVariable(FLOAT, {3}, "x");
    graph.setTileMapping(x, 1);
    graph.setInitialValue(x, ArrayRef<float>{1, 2, 3});
    graph.createHostRead("x", x);
    cs = graph.addComputeSet("double");
    VertexRef v = graph.addVertex(cs, "Scale", {{"data", x}});
    graph.setInitialValue(v["factor"], 2.0f);
    graph.setTileMapping(v, 1);
  }
  std::vector<float> run(const OptionFlags &opts) {
    Engine e(graph, Execute(cs), opts);
    e.load(device);
    e.run();
    std::vector<float> out(3);
    e.readTensor("x", out.data(), out.data() + 3);
    return out;
  }
};

/// A graph whose tile 2 holds 2 KiB of variables on a 1 KiB tile.
struct Overflowing {
  Device device;
  Graph graph;
  Overflowing() : device(makeDevice()), graph(device.getTarget()) {
    Tensor big = graph.addVariable(FLOAT, {512}, "big");
    graph.setTileMapping(big, 2);
  }
  static Device makeDevice() {
    IPUModel model;
    model.tilesPerIPU = 4;
    model.memoryBytesPerTile = 1024;
    return model.createDevice();
  }
};

} // namespace

TEST(EngineOptions, UnknownOptionSuggestsNearestName) {
  Doubler d;
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"target.hostThread", "2"}});
      },
      {"'target.hostThread'", "did you mean 'target.hostThreads'"});
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"debug.allowOutOfMemroy", "true"}});
      },
      {"'debug.allowOutOfMemroy'", "did you mean 'debug.allowOutOfMemory'"});
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"autoReport.al", "true"}});
      },
      {"'autoReport.al'", "did you mean 'autoReport.all'"});
}

TEST(EngineOptions, UnrelatedUnknownOptionIsNamedWithoutSuggestion) {
  Doubler d;
  try {
    Engine e(d.graph, Execute(d.cs), {{"zzzzzz", "1"}});
    FAIL() << "expected invalid_option";
  } catch (const invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("'zzzzzz'"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
  }
}

TEST(EngineOptions, BadBoolValue) {
  Doubler d;
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"debug.allowOutOfMemory", "yes"}});
      },
      {"'debug.allowOutOfMemory'", "'yes'", "'true' or 'false'"});
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"debug.instrument", "1"}});
      },
      {"'debug.instrument'", "'1'"});
}

TEST(EngineOptions, BadUnsignedAndEnumValues) {
  Doubler d;
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"target.hostThreads", "two"}});
      },
      {"'target.hostThreads'", "'two'", "non-negative integer"});
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"target.hostThreads", "-1"}});
      },
      {"'target.hostThreads'", "'-1'"});
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"target.hostThreads", "0"}});
      },
      {"'target.hostThreads'", "at least 1"});
  expectThrowWithMessage<invalid_option>(
      [&] {
        Engine e(d.graph, Execute(d.cs), {{"profiler.format", "v3"}});
      },
      {"'profiler.format'", "'v3'", "v1"});
}

TEST(EngineOptions, HostThreadsSetsThreadCount) {
  Doubler d;
  for (unsigned n : {1u, 2u, 3u}) {
    Engine e(d.graph, Execute(d.cs), {{"target.hostThreads", std::to_string(n)}});
    EXPECT_EQ(e.getNumHostThreads(), n);
  }
  Engine byDefault(d.graph, Execute(d.cs));
  EXPECT_GE(byDefault.getNumHostThreads(), 1u);
}

TEST(EngineOptions, PoplarDocumentedOptionsAreAccepted) {
  Doubler d;
  OptionFlags opts{{"autoReport.all", "false"},
                   {"autoReport.directory", "/tmp/tessera-report-unused"},
                   {"autoReport.outputExecutionProfile", "false"},
                   {"debug.instrument", "false"},
                   {"debug.instrumentCompute", "true"},
                   {"debug.retainDebugInformation", "true"},
                   {"debug.allowOutOfMemory", "false"},
                   {"debug.computeInstrumentationLevel", "tile"},
                   {"target.saveArchive", ""},
                   {"target.deterministicWorkers", "portable"},
                   {"opt.maxCompilationThreads", "2"},
                   {"opt.internalExchangeOptimisationTarget", "balanced"},
                   {"exchange.streamBufferOverlap", "hostRearrangeOnly"},
                   {"profiler.format", "v2"},
                   {"target.hostThreads", "2"}};
  EXPECT_EQ(d.run(opts), (std::vector<float>{2, 4, 6}));
}

TEST(EngineOptions, EnvironmentJsonApplies) {
  Doubler d;
  ScopedEnv env("POPLAR_ENGINE_OPTIONS", R"({"target.hostThreads": "3"})");
  Engine e(d.graph, Execute(d.cs));
  EXPECT_EQ(e.getNumHostThreads(), 3u);
}

TEST(EngineOptions, EnvironmentOverridesExplicitOptions) {
  Doubler d;
  ScopedEnv env("POPLAR_ENGINE_OPTIONS", R"({"target.hostThreads": 2})");
  Engine e(d.graph, Execute(d.cs), {{"target.hostThreads", "1"}});
  EXPECT_EQ(e.getNumHostThreads(), 2u);
}

TEST(EngineOptions, EnvironmentAllowOutOfMemoryLetsOverflowCompile) {
  Overflowing o;
  expectThrowWithMessage<graph_memory_allocation_error>([&] { Engine e(o.graph, Sequence()); },
                                                        {"tile 2"});
  ScopedEnv env("POPLAR_ENGINE_OPTIONS", R"({"debug.allowOutOfMemory": "true"})");
  Engine e(o.graph, Sequence());
  e.load(o.device);
  e.run();
  EXPECT_EQ(e.getTileMemoryUsed(2), 2048u);
}

TEST(EngineOptions, EnvironmentUnknownKeyIsRejected) {
  Doubler d;
  ScopedEnv env("POPLAR_ENGINE_OPTIONS", R"({"target.hostTreads": "2"})");
  expectThrowWithMessage<invalid_option>([&] { Engine e(d.graph, Execute(d.cs)); },
                                         {"'target.hostTreads'", "'target.hostThreads'"});
}

TEST(EngineOptions, EnvironmentMalformedJsonIsRejected) {
  Doubler d;
  ScopedEnv env("POPLAR_ENGINE_OPTIONS", R"({"target.hostThreads": )");
  expectThrowWithMessage<invalid_option>([&] { Engine e(d.graph, Execute(d.cs)); },
                                         {"POPLAR_ENGINE_OPTIONS"});
}

TEST(EngineOptions, EmptyEnvironmentIsIgnored) {
  Doubler d;
  ScopedEnv env("POPLAR_ENGINE_OPTIONS", "");
  EXPECT_EQ(d.run({{"target.hostThreads", "1"}}), (std::vector<float>{2, 4, 6}));
}
