// Executables with cycleCount, cycleStamp and floating-point mode steps: they round-trip, and a
// damaged one (a step naming a tensor that is not there, a mode out of range) is refused with
// parse_error when read, never run.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include <poplar/CSRFunctions.hpp>
#include <poplar/CycleCount.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

// compiler::StepKind values (sdk/src/compiler/CompiledGraph.hpp), as stored in executables.
constexpr unsigned kCycleCounter = 16, kSetFloatMode = 17, kSaveFloatMode = 18, kLoadFloatMode = 19;

struct Timed {
  Device device = enginetest::smallDevice(2, 6);
  Graph graph{device.getTarget()};
  Sequence prog;
  Timed() {
    testvertices::registerTestVertices();
    Tensor x = graph.addVariable(FLOAT, {2, 4}, "x");
    ComputeSet cs = graph.addComputeSet("scale");
    for (unsigned t = 0; t < 2; ++t) {
      graph.setTileMapping(x[t], t);
      VertexRef v = graph.addVertex(cs, "Scale", {{"data", x[t]}});
      graph.setInitialValue(v["factor"], 2.0f);
      graph.setTileMapping(v, t);
    }
    Tensor saved = getAndModifyFloatingPointBehaviour(
        graph, prog, FloatingPointBehaviour(),
        FloatingPointBehaviour(false, true, false, false, false));
    prog.add(Repeat(2, Execute(cs)));
    setFloatingPointBehaviour(graph, prog, saved);
    Tensor stamp = cycleStamp(graph, prog, 1, SyncType::INTERNAL);
    Tensor count = cycleCount(graph, prog, 0, SyncType::INTERNAL);
    graph.createHostRead("stamp", stamp);
    graph.createHostRead("count", count);
    graph.createHostRead("saved", saved);
  }
  std::string bytes() {
    std::stringstream s;
    compileGraph(graph, prog).serialize(s);
    return s.str();
  }
};

void varint(std::string &out, std::uint64_t v) {
  do {
    out.push_back(char((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v);
}

/// One packed element more for each of the step arrays (fields 26–29 of executable.proto):
/// a step appended after the program's End.
std::string withExtraStep(std::string bytes, unsigned kind, std::uint64_t index,
                          std::uint64_t count) {
  for (auto [field, value] :
       {std::pair<unsigned, std::uint64_t>{26, kind}, {27, index}, {28, 0}, {29, count}}) {
    varint(bytes, (field << 3) | 2);
    std::string payload;
    varint(payload, value);
    varint(bytes, payload.size());
    bytes += payload;
  }
  return bytes;
}

Executable read(const std::string &bytes) {
  std::stringstream in(bytes);
  return Executable::deserialize(in);
}

std::uint64_t counter(Engine &engine, const char *handle) {
  std::uint32_t w[2];
  engine.readTensor(handle, w);
  return w[0] | (std::uint64_t(w[1]) << 32);
}

} // namespace

TEST(ExecutableRegisterSteps, RoundTripRunsTheSame) {
  Timed t;
  Engine direct(t.graph, t.prog, {{"executableCache.enable", "false"}});
  direct.load(t.device);
  direct.run(0);
  Engine restored(read(t.bytes()));
  restored.load(t.device);
  restored.run(0);
  EXPECT_EQ(counter(restored, "count"), counter(direct, "count"));
  EXPECT_EQ(counter(restored, "stamp"), counter(direct, "stamp"));
  EXPECT_GT(counter(restored, "count"), 0u);
  std::uint32_t saved[2];
  restored.readTensor("saved", saved);
  EXPECT_EQ(saved[0], 0u); // the mode a loaded engine starts with
}

TEST(ExecutableRegisterStepsErrors, StepsNamingMissingTensorsOrBadModesAreRefused) {
  Timed t;
  const std::string good = t.bytes();
  const auto refused = [&](unsigned kind, std::uint64_t index, std::uint64_t count,
                           const char *what) {
    expectThrowWithMessage<parse_error>([&] { read(withExtraStep(good, kind, index, count)); },
                                        {"deserializing an executable", "corrupt", what});
  };
  refused(kCycleCounter, 99, 0, "step operand");
  refused(kCycleCounter, 0, 3, "cycle counter mode");
  refused(kSaveFloatMode, 7, 0, "step operand");
  refused(kLoadFloatMode, 7, 0, "step operand");
  refused(kSetFloatMode, 0, 0xff, "floating-point mode");
  refused(kSetFloatMode, 0, std::uint64_t(1) << 20, "floating-point mode");
  // A well-formed step the graph profile does not list: the profile, priced by step index at
  // load, would not match the plan.
  refused(kCycleCounter, 0, 2, "graph profile");
}

TEST(ExecutableRegisterStepsErrors, CorruptBytesNeverCrash) {
  Timed t;
  const std::string bytes = t.bytes();
  for (std::size_t at = 0; at < bytes.size(); at += 5) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    try {
      Engine engine(read(damaged));
      engine.load(t.device); // not run: a damaged loop count could make it run for long
    } catch (const poplar_error &) {
    }
  }
}
