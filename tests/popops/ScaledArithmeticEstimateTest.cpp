// popops::internal::getScaledArithmeticSupervisorCycleEstimate (popops/PerformanceEstimation.hpp)
// and the layouts of <poplar/VectorLayout.hpp> it takes: the estimate is what the engine's cost
// model charges the scaledAddTo / scaledSubtractFrom vertex — checked with
// Engine::estimateProgramCycles of one-tile programs of two sizes, whose difference is the
// workers times the difference of the vertex estimates — and the layouts change nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <sstream>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/VectorLayout.hpp>
#include <popops/PerformanceEstimation.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/codelets.hpp>

using namespace poplar;
using namespace poplar::program;
namespace pi = popops::internal;
using Op = pi::ScaledArithmeticOp;

namespace {

Device oneTile() {
  IPUModel m;
  m.tilesPerIPU = 1;
  return m.createDevice();
}

/// The engine's estimate of the scaled-arithmetic program for `n` elements on tile 0.
std::uint64_t programCycles(Type aType, Type bType, bool constant, Op op, std::size_t n) {
  Device device = oneTile();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;
  Tensor A = graph.addVariable(aType, {n}, "A");
  Tensor B = graph.addVariable(bType, {n}, "B");
  Tensor a = graph.addVariable(aType, {}, "a");
  Tensor b = graph.addVariable(aType, {}, "b");
  for (const Tensor &t : {A, B, a, b})
    graph.setTileMapping(t, 0);
  switch (op) {
  case Op::ADD:
    constant ? popops::scaledAddTo(graph, A, B, 0.5f, prog)
             : popops::scaledAddTo(graph, A, B, b, prog);
    break;
  case Op::SUBTRACT:
    constant ? popops::scaledSubtractFrom(graph, A, B, 0.5f, prog)
             : popops::scaledSubtractFrom(graph, A, B, b, prog);
    break;
  case Op::AXPLUSBY:
    constant ? popops::scaledAddTo(graph, A, 0.5f, B, 0.25f, prog)
             : popops::scaledAddTo(graph, A, a, B, b, prog);
    break;
  case Op::AXMINUSBY:
    constant ? popops::scaledSubtractFrom(graph, A, 0.5f, B, 0.25f, prog)
             : popops::scaledSubtractFrom(graph, A, a, B, b, prog);
    break;
  }
  Engine engine(graph, prog);
  engine.load(device);
  return engine.estimateProgramCycles(0);
}

std::uint64_t estimate(Type aType, Type bType, bool constant, Op op, unsigned n,
                       layout::Vector aLayout = layout::Vector::Span,
                       layout::Vector bLayout = layout::Vector::Span) {
  const Target target = oneTile().getTarget();
  const pi::ScaledArithmeticTargetParameters params(target, aType);
  return pi::getScaledArithmeticSupervisorCycleEstimate(params, aType, bType, constant, false, op,
                                                        aLayout, bLayout, n);
}

} // namespace

TEST(ScaledArithmeticEstimate, EngineChargesTheEstimate) {
  const std::uint64_t workers = oneTile().getTarget().getNumWorkerContexts();
  struct Case {
    Type a, b;
    bool constant;
    Op op;
  };
  for (const Case &c :
       {Case{FLOAT, FLOAT, true, Op::ADD}, Case{HALF, HALF, false, Op::ADD},
        Case{FLOAT, FLOAT, false, Op::SUBTRACT}, Case{HALF, HALF, true, Op::SUBTRACT},
        Case{FLOAT, FLOAT, true, Op::AXPLUSBY}, Case{HALF, HALF, false, Op::AXPLUSBY},
        Case{HALF, FLOAT, true, Op::AXMINUSBY}, Case{FLOAT, FLOAT, false, Op::AXMINUSBY}}) {
    SCOPED_TRACE(c.a.toString() + "/" + c.b.toString() + (c.constant ? " constant" : " tensor") +
                 " op " + std::to_string(static_cast<int>(c.op)));
    const unsigned n1 = 256, n2 = 4096;
    const std::uint64_t e1 = estimate(c.a, c.b, c.constant, c.op, n1);
    const std::uint64_t e2 = estimate(c.a, c.b, c.constant, c.op, n2);
    ASSERT_GT(e2, e1);
    EXPECT_EQ(programCycles(c.a, c.b, c.constant, c.op, n2) -
                  programCycles(c.a, c.b, c.constant, c.op, n1),
              workers * (e2 - e1));
  }
}

TEST(ScaledArithmeticEstimate, TwoScalesCostAtLeastOne) {
  for (Type t : {FLOAT, HALF})
    for (bool constant : {true, false}) {
      EXPECT_GE(estimate(t, t, constant, Op::AXPLUSBY, 1000),
                estimate(t, t, constant, Op::ADD, 1000));
      EXPECT_GT(estimate(t, t, constant, Op::ADD, 1000), 0u);
    }
}

TEST(ScaledArithmeticEstimate, LayoutsChangeNothing) {
  for (layout::Vector l :
       {layout::Vector::NotAVector, layout::Vector::ShortSpan, layout::Vector::OnePtr,
        layout::Vector::ScaledPtr32, layout::Vector::ScaledPtr64, layout::Vector::ScaledPtr128})
    EXPECT_EQ(estimate(HALF, HALF, true, Op::ADD, 500, l, l),
              estimate(HALF, HALF, true, Op::ADD, 500));
}

TEST(VectorLayout, NamesPrintAsTheEnumerators) {
  EXPECT_EQ(layout::to_string(layout::Vector::ScaledPtr64), "ScaledPtr64");
  EXPECT_EQ(layout::to_string(layout::Vector::NotAVector), "NotAVector");
  EXPECT_EQ(layout::to_string(layout::VectorList::DeltaNElements), "DeltaNElements");
  std::ostringstream os;
  os << layout::Vector::ShortSpan << " " << layout::VectorList::DeltaN;
  EXPECT_EQ(os.str(), "ShortSpan DeltaN");
}
