// Profiling: let the engine write a profile while it runs, then read it back with pva.
//
// A small graph — stream a vector in, add half of it to an accumulator spread over eight tiles,
// sum each row, stream the sums out — runs twice with `autoReport.all`, which makes the engine
// write profile.pop (and the other profile files) in `autoReport.directory`. The program then
// opens profile.pop with pva, the profile reader named after Graphcore's libpva, and prints what
// it holds. Only figures that do not change from run to run are printed: bytes, counts and
// cycles, which are the cost model's estimates. Host times are measured, so they vary.
#include <algorithm>
#include <cstdio>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Reduce.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <pva/pva.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr unsigned kTiles = 8, kRows = 8, kColumns = 128;

/// Counts the programs of each kind it is shown — the way libpva's tutorials look at programs.
struct ProgramKinds : pva::ProgramVisitor {
  unsigned computeSets = 0, exchanges = 0, streamCopies = 0;
  std::uint64_t vertices = 0;
  void visitOnTileExecute(const pva::OnTileExecuteProgram &p) override {
    ++computeSets;
    vertices += p.computeset().numVertices();
  }
  void visitDoExchange(const pva::DoExchangeProgram &) override { ++exchanges; }
  void visitStreamCopyMid(const pva::StreamCopyMidProgram &) override { ++streamCopies; }
};

} // namespace

int main() {
  IPUModel model;
  model.tilesPerIPU = kTiles;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);

  Tensor acc = graph.addVariable(FLOAT, {kRows, kColumns}, "accumulator");
  Tensor b = graph.addVariable(FLOAT, {kRows, kColumns}, "b");
  poputil::mapTensorLinearly(graph, acc);
  poputil::mapTensorLinearly(graph, b);
  graph.createHostWrite("accumulator", acc);
  auto bIn = graph.addHostToDeviceFIFO("b", FLOAT, b.numElements());
  auto sumsOut = graph.addDeviceToHostFIFO("sums", FLOAT, kRows);

  Sequence prog;
  prog.add(Copy(bIn, b));
  popops::scaledAddTo(graph, acc, b, 0.5f, prog, "accumulate");
  Tensor sums = popops::reduce(graph, acc, {1}, {popops::Operation::ADD}, prog, "rowSums");
  prog.add(Copy(sums, sumsOut));

  // autoReport.all turns on the graph and execution profiles (and host timing); the directory
  // is created if needed. profile.pop is rewritten after every run, so it always holds both.
  Engine engine(graph, prog, {{"autoReport.all", "true"}, {"autoReport.directory", "reports"}});
  std::vector<float> zeros(kRows * kColumns, 0.0f), ones(kRows * kColumns, 1.0f), out(kRows);
  engine.connectStream("b", ones.data());
  engine.connectStream("sums", out.data());
  engine.load(device);
  engine.writeTensor("accumulator", zeros.data(), zeros.data() + zeros.size());
  engine.run(0);
  engine.run(0);
  std::printf("row sums after two runs: %.1f (expected %.1f)\n", out[0], 2 * 0.5 * kColumns);

  const pva::Report report = pva::openReport("reports/profile.pop");
  const auto &target = report.compilation().target();
  std::printf("target: %u IPU, %u tiles, %llu bytes per tile\n", target.numIPUs(),
              target.numTiles(), static_cast<unsigned long long>(target.bytesPerTile()));

  const auto &g = report.compilation().graph();
  std::printf("graph: %llu compute sets, %llu vertices, %llu variables\n",
              static_cast<unsigned long long>(g.numComputeSets()),
              static_cast<unsigned long long>(g.numVertices()),
              static_cast<unsigned long long>(g.numVars()));

  std::uint64_t total = 0, gaps = 0, busiest = 0;
  unsigned busiestTile = 0;
  for (const pva::Tile &t : report.compilation().tiles()) {
    const auto bytes = t.memory().total();
    total += bytes.includingGaps();
    gaps += bytes.includingGaps() - bytes.excludingGaps();
    if (bytes.includingGaps() > busiest) {
      busiest = bytes.includingGaps();
      busiestTile = t.number();
    }
  }
  std::printf("memory: %llu bytes on all tiles (%llu of them alignment gaps); tile %u uses the "
              "most, %llu bytes\n",
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(gaps),
              busiestTile, static_cast<unsigned long long>(busiest));

  ProgramKinds kinds;
  for (const auto &p : report.compilation().programs())
    p->accept(kinds);
  std::printf("programs: %u compute sets executed (%llu vertices), %u exchanges, %u stream "
              "copies\n",
              kinds.computeSets, static_cast<unsigned long long>(kinds.vertices), kinds.exchanges,
              kinds.streamCopies);

  // Every step of every run, on the estimated-cycle clock.
  const auto &execution = report.execution();
  for (const pva::Run &run : execution.runs())
    std::printf("run of program %u: %zu steps, cycles %llu to %llu\n", run.program(),
                run.steps().size(), static_cast<unsigned long long>(run.cyclesFrom()),
                static_cast<unsigned long long>(run.cyclesTo()));
  const auto steps = execution.steps();
  const auto costliest =
      std::max_element(steps.begin(), steps.end(),
                       [](const auto &x, const auto &y) { return x.cycles() < y.cycles(); });
  std::uint64_t onIpu0 = 0;
  for (const pva::ExecutionStep &s : steps)
    onIpu0 += s.ipus()[0].cycles();
  std::printf("steps: %zu, %llu estimated cycles on IPU 0 (%.2f us at %.0f MHz)\n", steps.size(),
              static_cast<unsigned long long>(onIpu0), onIpu0 / target.clockFrequency() * 1e6,
              target.clockFrequency() / 1e6);
  std::printf("costliest step: %s, %llu estimated cycles\n", costliest->program()->name().c_str(),
              static_cast<unsigned long long>(costliest->cycles()));
  return 0;
}
