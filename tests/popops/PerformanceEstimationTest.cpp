// popops::internal cycle estimates (popops/PerformanceEstimation.hpp): positive, growing with
// the size, and the estimates the engine's cost model charges the same vertices — checked with
// Engine::estimateProgramCycles of one-vertex programs of two sizes, whose difference is the
// workers times the difference of the vertex estimates (the sync and the empty exchange cost
// the same for both).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Cast.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Fill.hpp>
#include <popops/PerformanceEstimation.hpp>
#include <popops/codelets.hpp>

using namespace poplar;
using namespace poplar::program;
namespace pi = popops::internal;
using popops::expr::BinaryOpType;

namespace {

Device oneTile() {
  IPUModel m;
  m.tilesPerIPU = 1;
  return m.createDevice();
}

/// The engine's estimate of the program `build` adds for `n` elements, everything on tile 0.
std::uint64_t programCycles(const std::function<void(Graph &, Sequence &, std::size_t)> &build,
                            std::size_t n) {
  Device device = oneTile();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;
  build(graph, prog, n);
  Engine engine(graph, prog);
  engine.load(device); // the vertices' own estimates are taken when they are loaded
  return engine.estimateProgramCycles(0);
}

Tensor onTileZero(Graph &g, Type type, std::size_t n) {
  Tensor t = g.addVariable(type, {n});
  g.setTileMapping(t, 0);
  return t;
}

/// Checks that going from n1 to n2 elements adds workers × (estimate(n2) − estimate(n1)).
void expectEngineAgrees(const std::function<void(Graph &, Sequence &, std::size_t)> &build,
                        const std::function<std::uint64_t(const Target &, std::size_t)> &estimate) {
  const Target target = oneTile().getTarget();
  const std::uint64_t workers = target.getNumWorkerContexts();
  const std::size_t n1 = 256, n2 = 4096;
  const std::uint64_t e1 = estimate(target, n1), e2 = estimate(target, n2);
  ASSERT_GT(e2, e1);
  EXPECT_EQ(programCycles(build, n2) - programCycles(build, n1), workers * (e2 - e1));
}

} // namespace

TEST(PerformanceEstimation, EstimatesArePositiveAndGrowWithTheSize) {
  const Target target = oneTile().getTarget();
  const pi::CastTargetParameters castParams(target, FLOAT, HALF);
  const pi::FillTargetParameters fillParams(target);
  const pi::MultiSliceTargetParameters sliceParams(target, FLOAT);
  const pi::MultiUpdateOpTargetParameters updateParams(target, HALF);
  std::uint64_t last[11] = {};
  for (unsigned n : {1u, 16u, 1000u, 100000u}) {
    std::vector<unsigned> runs(4, n);
    const std::uint64_t now[11] = {
        pi::getDynamicSlice1DEstimate(target, FLOAT, n, 3),
        pi::getMultiSliceCycleEstimate(sliceParams, n, 5, 5, 1),
        pi::getMultiUpdateOpCycleEstimate(updateParams, true, n, 5, 5, 1, popops::Operation::ADD,
                                          true),
        pi::getBinaryOp1DInPlaceEstimate(target, FLOAT, BinaryOpType::ADD, n),
        pi::getCast1DCycleEstimate(castParams, FLOAT, HALF, n),
        pi::getCast1DSingleWorkerCycleEstimate(castParams, HALF, INT, n),
        pi::getCast2DCycleEstimate(castParams, FLOAT, HALF, runs),
        pi::getFill1DCycleEstimate(fillParams, HALF, n),
        pi::getFill2DCycleEstimate(fillParams, FLOAT, runs),
        pi::broadcastArithmetic1DCycleEstimate(target, BinaryOpType::MULTIPLY, FLOAT, FLOAT, true,
                                               n)
            .cycles,
        pi::broadcastArithmeticCycleEstimate(target, BinaryOpType::ADD, HALF, HALF, false, true,
                                             std::vector<std::size_t>(3, n))
            .cycles};
    for (int k = 0; k < 11; ++k) {
      EXPECT_GT(now[k], 0u) << k << " at " << n;
      EXPECT_GE(now[k], last[k]) << k << " at " << n;
      last[k] = now[k];
    }
    EXPECT_EQ(
        pi::broadcastArithmetic1DCycleEstimate(target, BinaryOpType::ADD, FLOAT, FLOAT, false, n)
            .flops,
        n);
  }
  EXPECT_GT(pi::basicOpSupervisorOverhead(), 0u);
  EXPECT_EQ(pi::basicOpLoopCycles(10, 4, 3), 9u); // 3 vectors of 3 cycles
  EXPECT_EQ(pi::basicOpLoopCycles(8, 0, 2), 16u); // width 0 counts as 1
  EXPECT_EQ(pi::binaryOpInnerLoopCycles(target, FLOAT, 2, false, 5, 1), 15u);
  EXPECT_EQ(pi::binaryOpInnerLoopCycles(target, FLOAT, 2, true, 5, 1),
            3u * ((5 + target.getVectorWidth(FLOAT) - 1) / target.getVectorWidth(FLOAT)));
}

TEST(PerformanceEstimation, CastEstimateIsWhatTheEngineChargesTheCastVertex) {
  for (auto [from, to] : {std::pair<Type, Type>{FLOAT, HALF},
                          {HALF, FLOAT},
                          {INT, FLOAT},
                          {FLOAT, UNSIGNED_CHAR},
                          {SHORT, HALF}}) {
    SCOPED_TRACE(from.toString() + " to " + to.toString());
    expectEngineAgrees(
        [from = from, to = to](Graph &g, Sequence &p, std::size_t n) {
          popops::cast(g, onTileZero(g, from, n), to, p);
        },
        [from = from, to = to](const Target &t, std::size_t n) {
          return pi::getCast1DCycleEstimate(pi::CastTargetParameters(t, from, to), from, to,
                                            static_cast<unsigned>(n));
        });
  }
}

TEST(PerformanceEstimation, BinaryInPlaceEstimateIsWhatTheEngineChargesTheMapVertex) {
  for (auto op : {BinaryOpType::ADD, BinaryOpType::MAXIMUM, BinaryOpType::DIVIDE}) {
    for (Type type : {FLOAT, HALF}) {
      expectEngineAgrees(
          [op, type](Graph &g, Sequence &p, std::size_t n) {
            popops::mapInPlace(g, popops::expr::BinaryOp(op, popops::expr::_1, popops::expr::_2),
                               {onTileZero(g, type, n), onTileZero(g, type, n)}, p);
          },
          [op, type](const Target &t, std::size_t n) {
            return pi::getBinaryOp1DInPlaceEstimate(t, type, op, static_cast<unsigned>(n));
          });
    }
  }
}

TEST(PerformanceEstimation, BroadcastEstimateIsWhatTheEngineChargesTheMapVertex) {
  expectEngineAgrees(
      [](Graph &g, Sequence &p, std::size_t n) {
        popops::mapInPlace(
            g, popops::expr::BinaryOp(BinaryOpType::MULTIPLY, popops::expr::_1, popops::expr::_2),
            {onTileZero(g, FLOAT, n), onTileZero(g, FLOAT, 1)}, p);
      },
      [](const Target &t, std::size_t n) {
        return pi::broadcastArithmetic1DCycleEstimate(t, BinaryOpType::MULTIPLY, FLOAT, FLOAT, true,
                                                      n)
            .cycles;
      });
}

TEST(PerformanceEstimation, FillEstimateIsWhatTheEngineChargesTheFillVertex) {
  for (Type type : {FLOAT, HALF})
    expectEngineAgrees([type](Graph &g, Sequence &p,
                              std::size_t n) { popops::fill(g, onTileZero(g, type, n), p, 1.5f); },
                       [type](const Target &t, std::size_t n) {
                         return pi::getFill1DCycleEstimate(pi::FillTargetParameters(t), type,
                                                           static_cast<unsigned>(n));
                       });
}

namespace {

/// A FLOAT [10][n] base, `numOffsets` row offsets and (when `withSlices`) [numOffsets][1][n]
/// slices, all on tile 0.
struct SliceOperands {
  Tensor base, offsets, slices;
  SliceOperands(Graph &g, std::size_t n, std::size_t numOffsets) {
    base = onTileZero(g, FLOAT, 10 * n).reshape({10, n});
    offsets = onTileZero(g, UNSIGNED_INT, numOffsets).reshape({numOffsets, 1});
    slices = onTileZero(g, FLOAT, numOffsets * n).reshape({numOffsets, 1, n});
  }
};

} // namespace

TEST(PerformanceEstimation, SliceEstimatesAreWhatTheEngineChargesTheSliceVertices) {
  const unsigned numOffsets = 4;
  auto multiSliceParams = [](const Target &t) { return pi::MultiSliceTargetParameters(t, FLOAT); };
  auto updateParams = [](const Target &t) { return pi::MultiUpdateOpTargetParameters(t, FLOAT); };
  {
    SCOPED_TRACE("multiSlice");
    expectEngineAgrees(
        [&](Graph &g, Sequence &p, std::size_t n) {
          SliceOperands o(g, n, numOffsets);
          popops::multiSlice(g, o.base, o.offsets, {0}, {1}, p, popops::SlicePlan(), {});
        },
        [&](const Target &t, std::size_t n) {
          return pi::getMultiSliceCycleEstimate(multiSliceParams(t), static_cast<unsigned>(n),
                                                numOffsets, numOffsets, 1);
        });
  }
  {
    SCOPED_TRACE("multiUpdate");
    expectEngineAgrees(
        [&](Graph &g, Sequence &p, std::size_t n) {
          SliceOperands o(g, n, numOffsets);
          popops::multiUpdate(g, o.base, o.slices, o.offsets, {0}, {1}, p, popops::SlicePlan(), {});
        },
        [&](const Target &t, std::size_t n) {
          return pi::getMultiSliceCycleEstimate(multiSliceParams(t), static_cast<unsigned>(n),
                                                numOffsets, numOffsets, 1, true);
        });
  }
  {
    SCOPED_TRACE("multiUpdateAdd");
    expectEngineAgrees(
        [&](Graph &g, Sequence &p, std::size_t n) {
          SliceOperands o(g, n, numOffsets);
          Tensor scale = onTileZero(g, FLOAT, 1).reshape({});
          popops::multiUpdateAdd(g, o.base, o.slices, o.offsets, scale, {0}, {1}, p,
                                 popops::SlicePlan(), {});
        },
        [&](const Target &t, std::size_t n) {
          return pi::getMultiUpdateOpCycleEstimate(updateParams(t), false, static_cast<unsigned>(n),
                                                   numOffsets, numOffsets, 1,
                                                   popops::Operation::ADD, true);
        });
  }
  {
    SCOPED_TRACE("multiUpdateMax");
    expectEngineAgrees(
        [&](Graph &g, Sequence &p, std::size_t n) {
          SliceOperands o(g, n, numOffsets);
          popops::multiUpdateMax(g, o.base, o.slices, o.offsets, {0}, {1}, p, popops::SlicePlan(),
                                 {});
        },
        [&](const Target &t, std::size_t n) {
          return pi::getMultiUpdateOpCycleEstimate(updateParams(t), false, static_cast<unsigned>(n),
                                                   numOffsets, numOffsets, 1,
                                                   popops::Operation::MAX, false);
        });
  }
  {
    SCOPED_TRACE("dynamicSlice");
    expectEngineAgrees(
        [&](Graph &g, Sequence &p, std::size_t n) {
          SliceOperands o(g, n, 1);
          popops::dynamicSlice(g, o.base, o.offsets.reshape({1}), {0}, {1}, p);
        },
        [&](const Target &t, std::size_t n) {
          return pi::getDynamicSlice1DEstimate(t, FLOAT, static_cast<unsigned>(n), 1);
        });
  }
}
