// Serialized executables: compile once, save the result, and run it later without the graph.
//
// `save` builds a small graph (y = 2·x + 1 on eight elements spread over four tiles), compiles
// it with poplar::compileGraph — printing the compiler's progress — and writes the executable
// to a file. `load` reads that file and runs it: it builds no graph and compiles nothing, and
// talks to the program only through the names of its streams. Run with no argument, the program
// does both, as two separate steps would.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr const char *executableFile = "affine.poplar_exec";
constexpr std::size_t numElements = 8;

/// The target both steps use: an executable only runs on the target it was compiled for.
IPUModel makeModel() {
  IPUModel model;
  model.tilesPerIPU = 4;
  return model;
}

void save() {
  IPUModel model = makeModel();
  Graph graph(model.createDevice().getTarget());
  popops::addCodelets(graph);

  Tensor x = graph.addVariable(FLOAT, {numElements}, "x");
  poputil::mapTensorLinearly(graph, x);
  DataStream in = graph.addHostToDeviceFIFO("x", FLOAT, numElements);
  DataStream out = graph.addDeviceToHostFIFO("y", FLOAT, numElements);

  Sequence prog;
  prog.add(Copy(in, x));
  namespace pe = popops::expr;
  Tensor y = popops::map(graph, pe::Const(2.0f) * pe::_1 + pe::Const(1.0f), {x}, prog, "affine");
  prog.add(Copy(y, out));

  Executable exe = compileGraph(graph, {prog}, {}, [](int stage, int stages) {
    std::printf("compiling: stage %d of %d\n", stage, stages);
  });
  std::ofstream file(executableFile, std::ios::binary);
  exe.serialize(file);
  std::printf("saved %s\n", executableFile);
}

void load() {
  std::ifstream file(executableFile, std::ios::binary);
  Executable exe = Executable::deserialize(file);
  IPUModel model = makeModel();
  Device device = model.createDevice();
  Engine engine(std::move(exe));
  engine.load(device);

  std::vector<float> x(numElements), y(numElements);
  for (std::size_t i = 0; i < numElements; ++i)
    x[i] = static_cast<float>(i);
  engine.connectStream("x", x.data());
  engine.connectStream("y", y.data());
  engine.run(0);
  std::printf("loaded %s and ran it: y =", executableFile);
  for (float v : y)
    std::printf(" %g", v);
  std::printf("\n");
}

} // namespace

int main(int argc, char **argv) {
  const char *step = argc > 1 ? argv[1] : "both";
  if (std::strcmp(step, "save") != 0 && std::strcmp(step, "load") != 0 &&
      std::strcmp(step, "both") != 0) {
    std::fprintf(stderr, "usage: %s [save|load|both]  (got '%s')\n", argv[0], step);
    return 2;
  }
  if (std::strcmp(step, "save") == 0 || std::strcmp(step, "both") == 0)
    save();
  if (std::strcmp(step, "load") == 0 || std::strcmp(step, "both") == 0)
    load();
  return 0;
}
