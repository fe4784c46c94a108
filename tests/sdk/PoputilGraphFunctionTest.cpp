// poputil/GraphFunction.hpp: functions built once and called on different tensors give each
// call's own results (checked through the Engine against host arithmetic), the body is built
// exactly once, created results are separate per call, and bad calls are explained.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poputil/GraphFunction.hpp>
#include <poputil/exceptions.hpp>

#include "EngineErrorMatchers.hpp"
#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
namespace graphfn = poputil::graphfn;
using poputil::poplibs_error;

namespace {

struct Rig {
  Device device = enginetest::smallDevice(4);
  Graph graph{device.getTarget()};
  Rig() { testvertices::registerTestVertices(); }

  Tensor floats(std::size_t n, unsigned tile, const std::string &name) {
    Tensor t = graph.addVariable(FLOAT, {n}, name);
    graph.setTileMapping(t, tile);
    graph.createHostWrite(name, t);
    graph.createHostRead(name, t);
    return t;
  }
  /// Appends a compute set that multiplies `data` by `factor` in place.
  void scale(Sequence &seq, const Tensor &data, float factor) {
    ComputeSet cs = graph.addComputeSet("scale");
    VertexRef v = graph.addVertex(cs, "Scale", {{"data", data}});
    graph.setInitialValue(v["factor"], factor);
    graph.setTileMapping(v, 0);
    seq.add(Execute(cs));
  }
};

/// Compiles `prog`, writes `inputs` through their host handles, runs once and returns the
/// engine for reading results.
std::unique_ptr<Engine>
runOnce(Rig &rig, const Program &prog,
        const std::vector<std::pair<std::string, std::vector<float>>> &inputs) {
  auto engine = std::make_unique<Engine>(rig.graph, prog);
  engine->load(rig.device);
  for (const auto &[handle, values] : inputs)
    engine->writeTensor(handle, values.data(), values.data() + values.size());
  engine->run();
  return engine;
}

std::vector<float> read(Engine &e, const std::string &handle, std::size_t n) {
  std::vector<float> out(n);
  e.readTensor(handle, out.data(), out.data() + n);
  return out;
}

} // namespace

TEST(PoputilGraphFn, VoidFunctionInOutCalledTwiceScalesEachArgumentAndIsBuiltOnce) {
  for (bool inlined : {false, true}) {
    SCOPED_TRACE(inlined ? "inlined" : "as a poplar::Function");
    Rig rig;
    Tensor x = rig.floats(5, 1, "x"), y = rig.floats(5, 2, "y");
    int builds = 0;
    graphfn::VoidFunction triple(
        rig.graph, {graphfn::inout(x, "data")},
        [&](std::vector<Tensor> &args, Sequence &seq) {
          ++builds;
          rig.scale(seq, args[0], 3.0f);
        },
        inlined, "triple");
    Sequence prog;
    std::vector<Tensor> ax{x}, ay{y};
    triple(ax, prog);
    triple(ay, prog);
    triple(ay, prog); // y is tripled twice
    EXPECT_EQ(builds, 1);
    const std::vector<float> xs{1, 2, 3, 4, 5}, ys{-1, 0.5f, 2, 10, 7};
    auto e = runOnce(rig, prog, {{"x", xs}, {"y", ys}});
    const auto gotX = read(*e, "x", 5), gotY = read(*e, "y", 5);
    for (std::size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(gotX[i], xs[i] * 3);
      EXPECT_EQ(gotY[i], ys[i] * 9);
    }
  }
}

TEST(PoputilGraphFn, TensorFunctionReturnsASeparateResultPerCall) {
  Rig rig;
  Tensor a = rig.floats(6, 1, "a"), b = rig.floats(6, 3, "b");
  int builds = 0;
  graphfn::TensorFunction sum(
      rig.graph, {graphfn::input(a, "in")},
      [&](std::vector<Tensor> &args, Sequence &seq, const DebugNameAndId &dnai) {
        ++builds;
        Tensor out = rig.graph.addVariable(FLOAT, {1}, DebugContext(dnai, "sum"));
        rig.graph.setTileMapping(out, 0);
        ComputeSet cs = rig.graph.addComputeSet("sum");
        VertexRef v = rig.graph.addVertex(cs, "Sum", {{"in", args[0]}, {"out", out[0]}});
        rig.graph.setTileMapping(v, 0);
        seq.add(Execute(cs));
        return out;
      });
  Sequence prog;
  std::vector<Tensor> aa{a}, ab{b};
  Tensor ra = sum(aa, prog);
  Tensor rb = sum(ab, prog, "second");
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(ra.shape(), (std::vector<std::size_t>{1}));
  EXPECT_FALSE(ra.intersectsWith(rb));
  rig.graph.createHostRead("ra", ra);
  rig.graph.createHostRead("rb", rb);
  std::vector<float> av{1, 2, 3, 4, 5, 6}, bv{0.25f, 8, -3, 1, 1, 2};
  auto e = runOnce(rig, prog, {{"a", av}, {"b", bv}});
  EXPECT_EQ(read(*e, "ra", 1)[0], std::accumulate(av.begin(), av.end(), 0.0f));
  EXPECT_EQ(read(*e, "rb", 1)[0], std::accumulate(bv.begin(), bv.end(), 0.0f));
  // The inputs are only read.
  EXPECT_EQ(read(*e, "a", 6), av);
}

TEST(PoputilGraphFn, ProgramFunctionCopiesInputsInAndOutputsOut) {
  Rig rig;
  Tensor in1 = rig.floats(4, 1, "in1"), in2 = rig.floats(4, 2, "in2");
  Tensor out1 = rig.floats(4, 3, "out1"), out2 = rig.floats(4, 0, "out2");
  int builds = 0;
  graphfn::ProgramFunction doubleInto(rig.graph,
                                      {graphfn::input(in1, "in"), graphfn::output(out1, "out")},
                                      [&](std::vector<Tensor> &args) -> Program {
                                        ++builds;
                                        Sequence body;
                                        body.add(Copy(args[0], args[1]));
                                        rig.scale(body, args[1], 2.0f);
                                        return body;
                                      });
  std::vector<Tensor> call1{in1, out1}, call2{in2, out2};
  Sequence prog{doubleInto(call1), doubleInto(call2, "again")};
  EXPECT_EQ(builds, 1);
  const std::vector<float> v1{1, 2, 3, 4}, v2{-5, 6, 0.5f, 9};
  auto e = runOnce(rig, prog, {{"in1", v1}, {"in2", v2}});
  const auto got1 = read(*e, "out1", 4), got2 = read(*e, "out2", 4);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(got1[i], 2 * v1[i]);
    EXPECT_EQ(got2[i], 2 * v2[i]);
  }
  EXPECT_EQ(read(*e, "in1", 4), v1);
}

TEST(PoputilGraphFn, CreatedArgumentGetsANewTensorPerCall) {
  Rig rig;
  Tensor x = rig.floats(3, 1, "x"), y = rig.floats(3, 2, "y");
  graphfn::VoidFunction negateCopy(rig.graph, {graphfn::input(x, "in"), graphfn::created("made")},
                                   [&](std::vector<Tensor> &args, Sequence &seq) {
                                     args[1] = rig.graph.clone(args[0], "made");
                                     seq.add(Copy(args[0], args[1]));
                                     rig.scale(seq, args[1], -1.0f);
                                   });
  Sequence prog;
  std::vector<Tensor> cx{x, Tensor()}, cy{y, Tensor()};
  negateCopy(cx, prog);
  negateCopy(cy, prog);
  ASSERT_TRUE(cx[1].valid());
  ASSERT_TRUE(cy[1].valid());
  EXPECT_FALSE(cx[1].intersectsWith(cy[1]));
  rig.graph.createHostRead("cx", cx[1]);
  rig.graph.createHostRead("cy", cy[1]);
  auto e = runOnce(rig, prog, {{"x", {1, 2, 3}}, {"y", {4, 5, 6}}});
  EXPECT_EQ(read(*e, "cx", 3), (std::vector<float>{-1, -2, -3}));
  EXPECT_EQ(read(*e, "cy", 3), (std::vector<float>{-4, -5, -6}));
}

TEST(PoputilGraphFn, BadCallsAndBodiesAreExplained) {
  Rig rig;
  Tensor x = rig.floats(3, 1, "x");
  graphfn::VoidFunction f(rig.graph, {graphfn::input(x, "in"), graphfn::output(x, "out")},
                          [](std::vector<Tensor> &, Sequence &) {});
  Sequence prog;
  std::vector<Tensor> tooFew{x};
  EXPECT_THROW_MSG(poplibs_error, f(tooFew, prog),
                   {"poputil::graphfn", "called with 1 arguments", "signature has 2"});
  Tensor wrongShape = rig.graph.addVariable(FLOAT, {4});
  std::vector<Tensor> badShape{x, wrongShape};
  EXPECT_THROW_MSG(poplibs_error, f(badShape, prog),
                   {"poputil::graphfn", "argument 1 ('out')", "shape [4]", "expects [3]"});
  Tensor wrongType = rig.graph.addVariable(INT, {3});
  std::vector<Tensor> badType{wrongType, x};
  EXPECT_THROW_MSG(poplibs_error, f(badType, prog),
                   {"poputil::graphfn", "argument 0 ('in')", "type int", "float"});
  std::vector<Tensor> invalid{Tensor(), x};
  EXPECT_THROW_MSG(poplibs_error, f(invalid, prog),
                   {"poputil::graphfn", "argument 0 ('in') is invalid"});

  EXPECT_THROW_MSG(poplibs_error,
                   graphfn::VoidFunction(rig.graph, {graphfn::created("result")},
                                         [](std::vector<Tensor> &, Sequence &) {}),
                   {"poputil::graphfn", "did not create argument 0 ('result')"});
  EXPECT_THROW_MSG(poplibs_error,
                   graphfn::VoidFunction(rig.graph, {graphfn::input(Tensor(), "w")},
                                         [](std::vector<Tensor> &, Sequence &) {}),
                   {"poputil::graphfn", "argument 0 ('w') (input)", "no tensor to clone"});
  graphfn::TensorFunction identity(rig.graph, {graphfn::input(x, "in")},
                                   [](std::vector<Tensor> &args, Sequence &) { return args[0]; });
  std::vector<Tensor> twoArgs{x, x};
  EXPECT_THROW_MSG(poplibs_error, identity(twoArgs, prog),
                   {"poputil::graphfn", "called with 2 arguments", "signature has 1"});
  std::function<void(std::vector<Tensor> &, Sequence &)> empty;
  EXPECT_THROW_MSG(poplibs_error, graphfn::VoidFunction(rig.graph, {}, empty),
                   {"poputil::graphfn", "body is empty"});
}
