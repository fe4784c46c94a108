// Each compiler stage on a small graph, run in the order Compiler.cpp runs them, checked against
// what the stage must have produced (counted by hand from the graph).
#include <gtest/gtest.h>

#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"
#include "compiler/Compiler.hpp"
#include "compiler/CompilerContext.hpp"
#include "compiler/CycleEstimates.hpp"
#include "compiler/ExchangePlan.hpp"
#include "compiler/Liveness.hpp"
#include "compiler/MemoryReport.hpp"
#include "compiler/ProgramFlattener.hpp"
#include "compiler/TileByTileRuns.hpp"
#include "compiler/Validate.hpp"
#include "compiler/VertexState.hpp"
#include "profile/CostModel.hpp"

using namespace poplar;
using namespace poplar::program;
using namespace poplar::compiler;
using testerrors::throwsWithMessage;

namespace {

/// Two tiles. `data` (8 floats) lives on tile 0, `total` on tile 1; compute set "scale" scales
/// `data` in place on tile 0 and "sum" adds it up on tile 1 (so its input crosses tiles).
struct TwoTiles {
  IPUModel model;
  Device device;
  Graph graph;
  Tensor data, total, scratch;
  ComputeSet scale, sum;

  TwoTiles() : device(makeDevice()), graph(device.getTarget()) {
    testvertices::registerTestVertices();
    data = graph.addVariable(FLOAT, {8}, "data");
    total = graph.addVariable(FLOAT, {}, "total");
    scratch = graph.addVariable(FLOAT, {8}, "scratch");
    graph.setTileMapping(data, 0);
    graph.setTileMapping(total, 1);
    graph.setTileMapping(scratch, 0);
    graph.createHostRead("total", total);
    scale = graph.addComputeSet("scale");
    VertexRef v = graph.addVertex(scale, "Scale", {{"data", data}});
    graph.setInitialValue(v["factor"], 2.0f);
    graph.setTileMapping(v, 0);
    sum = graph.addComputeSet("sum");
    VertexRef s = graph.addVertex(sum, "Sum", {{"in", data}, {"out", total}});
    graph.setTileMapping(s, 1);
  }
  Device makeDevice() {
    model.tilesPerIPU = 2;
    return model.createDevice();
  }
  const core::GraphData &g() const { return graph.data(); }
};

} // namespace

TEST(CompilerStages, ValidateListsComputeSetsInFirstUseOrderAndSharedNodes) {
  TwoTiles t;
  Program shared = Execute(t.sum);
  const ProgramUse use =
      validatePrograms(t.g(), {Sequence{Execute(t.sum), shared, shared}, Execute(t.scale)});
  EXPECT_EQ(use.computeSets, (std::vector<unsigned>{t.sum.getId(), t.scale.getId()}));
  EXPECT_EQ(use.references.at(shared.node().get()), 2u);
}

TEST(CompilerStages, ValidateNamesAComputeSetOfAnotherGraph) {
  TwoTiles a, b;
  EXPECT_TRUE(throwsWithMessage<graph_program_compilation_error>(
      [&] { validatePrograms(a.g(), {Sequence{Execute(b.sum)}}); }, {"Execute", "another graph"}));
}

TEST(CompilerStages, LivenessKeepsWhatIsReadBeforeWrittenAndBoundsATemporary) {
  TwoTiles t;
  Tensor tmp = t.graph.addVariable(FLOAT, {8}, "tmp");
  t.graph.setTileMapping(tmp, 1);
  ComputeSet copy = t.graph.addComputeSet("copy");
  VertexRef c = t.graph.addVertex(copy, "CopyFloats", {{"in", t.data}, {"out", tmp}});
  t.graph.setTileMapping(c, 1);
  ComputeSet sumTmp = t.graph.addComputeSet("sumTmp");
  VertexRef s = t.graph.addVertex(sumTmp, "Sum", {{"in", tmp}, {"out", t.total}});
  t.graph.setTileMapping(s, 1);
  const auto lifetimes =
      analyseLifetimes(t.g(), {Sequence{Execute(t.scale), Execute(copy), Execute(sumTmp)}});
  const auto var = [&](const Tensor &x) { return x.data().regions.front().var; };
  EXPECT_TRUE(lifetimes.persistent[var(t.total)]) << "registered for a host read";
  EXPECT_TRUE(lifetimes.persistent[var(t.data)]) << "InOut: 'scale' reads last run's value";
  EXPECT_FALSE(lifetimes.persistent[var(tmp)]) << "written by 'copy', read by 'sumTmp' only";
  ASSERT_FALSE(lifetimes.spans[var(tmp)].empty());
}

TEST(CompilerStages, LayoutPlacesEveryVariableOnItsTileWithoutOverlap) {
  TwoTiles t;
  CompilerContext ctx(t.g());
  ctx.layout = layOutVariables(t.g(), ctx.allocator, analyseLifetimes(t.g(), {Execute(t.sum)}));
  const TensorImage data = ctx.layout.image(t.data), scratch = ctx.layout.image(t.scratch),
                    total = ctx.layout.image(t.total);
  ASSERT_EQ(data.pieces.size(), 1u);
  EXPECT_EQ(data.pieces[0].at.tile, 0u);
  EXPECT_EQ(total.pieces[0].at.tile, 1u);
  EXPECT_EQ(data.bytes, 32u);
  const auto dataEnd = data.pieces[0].at.offset + 32, scratchEnd = scratch.pieces[0].at.offset + 32;
  EXPECT_TRUE(dataEnd <= scratch.pieces[0].at.offset || scratchEnd <= data.pieces[0].at.offset)
      << "both hold values at the same time (scratch is never written, so it persists)";
}

TEST(CompilerStages, LayoutNamesAnUnmappedVariable) {
  TwoTiles t;
  t.graph.addVariable(FLOAT, {4}, "loose");
  CompilerContext ctx(t.g());
  EXPECT_TRUE(throwsWithMessage<invalid_tile_mapping>(
      [&] { layOutVariables(t.g(), ctx.allocator, analyseLifetimes(t.g(), {Execute(t.sum)})); },
      {"'loose'", "element 0 has no tile"}));
}

namespace {
/// Runs the stages up to and including the exchange plan.
struct Planned {
  CompilerContext ctx;
  ProgramUse use;
  std::vector<Program> programs;
  Planned(const TwoTiles &t, std::vector<Program> progs)
      : ctx(t.g()), use(validatePrograms(t.g(), progs)), programs(std::move(progs)) {
    ctx.layout = layOutVariables(t.g(), ctx.allocator, analyseLifetimes(t.g(), programs));
    planVertexState(ctx, use.computeSets);
    planExchange(ctx);
  }
};
} // namespace

TEST(CompilerStages, VertexStatePlacesOneObjectPerVertexOnItsTile) {
  TwoTiles t;
  Planned p(t, {Sequence{Execute(t.scale), Execute(t.sum)}});
  const auto &plan = p.ctx.result;
  const auto &objects = plan.vertexObjects;
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0].tile, 0u);
  EXPECT_EQ(plan.typeOf(objects[0]).name, "Scale");
  EXPECT_EQ(objects[1].tile, 1u);
  ASSERT_EQ(plan.values(objects[0]).size(), 1u) << "the plain member 'factor'";
  const auto &value = plan.values(objects[0])[0];
  ASSERT_EQ(value.length, sizeof(float));
  float factor = 0;
  std::memcpy(&factor, plan.valueBytes.data() + value.pool, sizeof factor);
  EXPECT_EQ(factor, 2.0f);
}

TEST(CompilerStages, VertexObjectsAreRangesOfFlatPatchArraysInObjectOrder) {
  // Two Scale vertices (a plain member each) and a SumList whose two-entry list lies on the
  // other tile: one type table entry per type, patches in object order, list entries after
  // their object, every pointer aimed once the exchange stage has run.
  TwoTiles t;
  Tensor other = t.graph.addVariable(FLOAT, {8}, "other");
  t.graph.setTileMapping(other, 1);
  ComputeSet cs = t.graph.addComputeSet("lists");
  for (unsigned i = 0; i < 2; ++i) {
    VertexRef v = t.graph.addVertex(cs, "Scale", {{"data", other.slice(4 * i, 4 * i + 4)}});
    t.graph.setInitialValue(v["factor"], 3.0f + float(i));
    t.graph.setTileMapping(v, 1);
  }
  VertexRef list = t.graph.addVertex(
      cs, "SumList",
      {{"in", std::vector<Tensor>{t.data.slice(0, 2), t.data.slice(2, 8)}}, {"out", t.total}});
  t.graph.setTileMapping(list, 1);
  Planned p(t, {Execute(cs)});
  const auto &plan = p.ctx.result;
  ASSERT_EQ(plan.vertexObjects.size(), 3u);
  ASSERT_EQ(plan.vertexTypes.size(), 2u) << "Scale and SumList, once each";
  std::uint32_t pointers = 0, values = 0;
  for (const auto &obj : plan.vertexObjects) {
    EXPECT_EQ(obj.pointerBegin, pointers);
    EXPECT_EQ(obj.valueBegin, values);
    pointers += obj.pointerCount;
    values += obj.valueCount;
    for (const auto &patch : plan.pointers(obj))
      EXPECT_FALSE(patch.null()) << "every field is connected to data";
  }
  EXPECT_EQ(pointers, plan.pointerPatches.size());
  EXPECT_EQ(values, plan.valuePatches.size());
  for (unsigned i = 0; i < 2; ++i) {
    const auto &scale = plan.vertexObjects[i];
    EXPECT_EQ(plan.typeOf(scale).name, "Scale");
    ASSERT_EQ(scale.pointerCount, 1u) << "'data'";
    EXPECT_EQ(plan.pointers(scale)[0].targetTile, 1u) << "'data' is used where it lies";
    EXPECT_EQ(plan.pointers(scale)[0].size, 4u);
    ASSERT_EQ(scale.valueCount, 1u) << "'factor'";
    float factor = 0;
    std::memcpy(&factor, plan.valueBytes.data() + plan.values(scale)[0].pool, sizeof factor);
    EXPECT_EQ(factor, 3.0f + float(i));
  }
  const auto &sumList = plan.vertexObjects[2];
  EXPECT_EQ(plan.typeOf(sumList).name, "SumList");
  ASSERT_EQ(sumList.pointerCount, 4u) << "the list's table, its two entries and 'out'";
  const auto patches = plan.pointers(sumList);
  const std::uint64_t objectBytes = plan.typeOf(sumList).size;
  EXPECT_LT(patches[0].slot, objectBytes) << "the table pointer is a member";
  EXPECT_EQ(patches[0].size, 2u);
  EXPECT_EQ(patches[0].targetTile, 1u);
  EXPECT_EQ(patches[1].slot, patches[0].targetOffset - sumList.offset)
      << "entry 0 is the table's first span, after the object";
  EXPECT_GE(patches[1].slot, objectBytes);
  EXPECT_EQ(patches[2].slot, patches[1].slot + 2 * sizeof(void *));
  EXPECT_EQ(patches[1].size, 2u);
  EXPECT_EQ(patches[2].size, 6u);
  EXPECT_FALSE(patches[3].hasSize()) << "'out' is a scalar: a pointer alone";
}

TEST(CompilerStages, ExchangeBringsOnlyRemoteInputsAcross) {
  TwoTiles t;
  Planned p(t, {Sequence{Execute(t.scale), Execute(t.sum)}});
  const auto &sets = p.ctx.result.computeSets;
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_TRUE(sets[0].exchangeIn.empty()) << "'scale' works on its own tile's data";
  EXPECT_EQ(sets[1].exchangeIn.totalBytes, 32u) << "'sum' reads 8 floats from tile 0";
  for (const auto &op : sets[1].exchangeIn.ops) {
    EXPECT_EQ(op.src.tile, 0u);
    EXPECT_EQ(op.dst.tile, 1u);
  }
  EXPECT_TRUE(sets[1].exchangeOut.empty()) << "'total' is on the vertex's tile";
}

TEST(CompilerStages, FlattenTurnsRepeatIntoALoopAroundItsBody) {
  TwoTiles t;
  Planned p(t, {Repeat(3, Execute(t.scale)), Execute(t.sum)});
  flattenPrograms(p.ctx, p.programs, p.use);
  const auto &r = p.ctx.result;
  ASSERT_EQ(r.programStart.size(), 2u);
  std::vector<StepKind> kinds;
  for (std::size_t i = r.programStart[0]; r.steps[i].kind != StepKind::End; ++i)
    kinds.push_back(r.steps[i].kind);
  EXPECT_EQ(kinds,
            (std::vector<StepKind>{StepKind::LoopInit, StepKind::Execute, StepKind::LoopNext}));
  EXPECT_EQ(r.steps[r.programStart[0]].count, 3u);
}

TEST(CompilerStages, TileByTileJoinsConsecutiveSetsOverTheSameTiles) {
  TwoTiles t;
  ComputeSet again = t.graph.addComputeSet("scaleAgain");
  VertexRef v = t.graph.addVertex(again, "Scale", {{"data", t.data}});
  t.graph.setInitialValue(v["factor"], 3.0f);
  t.graph.setTileMapping(v, 0);
  Planned p(t, {Sequence{Execute(t.scale), Execute(again), Execute(t.sum)}});
  flattenPrograms(p.ctx, p.programs, p.use);
  planTileByTileRuns(p.ctx);
  const auto &steps = p.ctx.result.steps;
  const auto first = p.ctx.result.programStart[0];
  EXPECT_EQ(steps[first].count, 2u) << "'scale' then 'scaleAgain', both only on tile 0";
}

TEST(CompilerStages, CycleEstimatesCountEveryFieldElement) {
  TwoTiles t;
  Planned p(t, {Sequence{Execute(t.scale), Execute(t.sum)}});
  estimateVertexCycles(p.ctx);
  EXPECT_EQ(p.ctx.result.defaultVertexCycles,
            (std::vector<std::uint64_t>{profile::defaultVertexCycles(8),
                                        profile::defaultVertexCycles(8 + 1)}));
}

TEST(CompilerStages, MemoryReportIsEmptyWhenEverythingFitsAndNamesTheWorstTileOtherwise) {
  TwoTiles t;
  {
    Planned p(t, {Execute(t.sum)});
    recordMemory(p.ctx);
    EXPECT_EQ(outOfMemoryReport(p.ctx), "");
    EXPECT_GE(p.ctx.result.memory[0].variables, 32u);
  }
  Tensor big = t.graph.addVariable(FLOAT, {t.graph.getTarget().getBytesPerTile() / 4}, "big");
  t.graph.setTileMapping(big, 1);
  t.graph.createHostRead("big", big);
  Planned p(t, {Execute(t.sum)});
  recordMemory(p.ctx);
  const std::string report = outOfMemoryReport(p.ctx);
  EXPECT_NE(report.find("Out of memory on tile 1"), std::string::npos) << report;
  EXPECT_NE(report.find("'big'"), std::string::npos) << report;
}

TEST(CompilerStages, CompileRunsThemAllAndReportsEachStage) {
  TwoTiles t;
  std::vector<int> seen;
  CompileOptions options;
  options.progress = [&](int done, int total) {
    seen.push_back(done);
    EXPECT_EQ(total, 8);
  };
  const CompileResult r = compile(t.g(), {Sequence{Execute(t.scale), Execute(t.sum)}}, options);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(r.outOfMemory.empty());
  EXPECT_EQ(r.plan.vertexObjects.size(), 2u);
  EXPECT_EQ(r.plan.defaultVertexCycles.size(), 2u);
  ASSERT_EQ(r.plan.hostReads.size(), 1u);
  EXPECT_EQ(r.plan.hostReads[0].first, "total");
}
