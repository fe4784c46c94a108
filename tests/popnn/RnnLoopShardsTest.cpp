// rnn::Rnn (the custom-cell loop) with numShards > 1 and with run-time lengths
// (RnnParams::varTimeSteps): sharded loops give the unsharded results and hand the body each
// shard's first step and the step within the shard; with lengths the body receives per-entry
// masks and the loop stops after the longest sequence; the gather form; the numShards option
// of the LSTM and GRU.
#include <algorithm>

#include <popnn/Gru.hpp>
#include <popnn/Lstm.hpp>
#include <popnn/Rnn.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;
namespace rnn = popnn::rnn;
namespace pe = popops::expr;

namespace {

constexpr std::size_t kSteps = 7, kBatch = 3, kSize = 4;

struct LoopRun {
  std::map<std::string, std::vector<double>> results;
};

/// A cell s = s * 0.5 + x_t (masked per entry when flags are given) whose outputs are the
/// state; the `created` sequence records (begin, counter, variableSeqFlag, mask[b]) per step.
LoopRun runLoop(unsigned numShards, bool reverse, const std::vector<std::size_t> &lengths,
                unsigned threads = 1) {
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  Tensor len;
  if (!lengths.empty())
    len = h.input(poplar::INT, {lengths.size()},
                  std::vector<double>(lengths.begin(), lengths.end()), "lengths");
  rnn::RnnParams params = lengths.empty()
                              ? rnn::RnnParams(poplar::FLOAT, kBatch, kSteps, {kSize, kSize})
                              : rnn::RnnParams(poplar::FLOAT, kBatch, kSteps, len, {kSize, kSize});
  std::vector<double> xv(kSteps * kBatch * kSize);
  for (std::size_t i = 0; i < xv.size(); ++i)
    xv[i] = static_cast<double>(i % 11) - 5.0;
  Tensor x = rnn::createInputTensor(g, params, numShards, "x");
  h.input(x, xv, "x");
  Tensor s0 = rnn::createInitialState(g, params, true, 1, numShards, "s0").squeeze({0});
  popops::zero(g, s0, h.prog(), "zeroState");
  Tensor outputs = rnn::createOutputTensor(g, params, numShards, "outputs");
  Tensor record = g.addVariable(poplar::FLOAT, {kSteps, 3 + kBatch}, "record");
  poputil::mapTensorLinearly(g, record);
  popops::zero(g, outputs, h.prog(), "zeroOutputs");
  popops::zero(g, record, h.prog(), "zeroRecord");
  rnn::LoopBodyType cell = [](poplar::Graph &graph, const rnn::TimeStepState &time,
                              const rnn::RnnBatchwiseFlags &flags, std::vector<Tensor> &state,
                              const rnn::RnnSlice &slice, std::vector<Tensor> &created,
                              poplar::program::Sequence *, const poplar::DebugNameAndId &dnai) {
    poplar::program::Sequence prog;
    Tensor s = state[0];
    Tensor x = slice.inputs[0];
    if (flags.valid())
      popops::mapInPlace(graph, pe::_1 * pe::Const(0.5f) + pe::_2 * pe::_3,
                         {s, x, flags.mask.expand({1})}, prog, {dnai, "masked"});
    else
      popops::mapInPlace(graph, pe::_1 * pe::Const(0.5f) + pe::_2, {s, x}, prog, {dnai, "step"});
    prog.add(poplar::program::Copy(s, slice.outputs[0]));
    std::vector<Tensor> parts{popops::cast(graph, time.begin, poplar::FLOAT, prog),
                              popops::cast(graph, time.counter, poplar::FLOAT, prog)};
    if (time.variableSeqFlag.valid())
      parts.push_back(popops::cast(graph, time.variableSeqFlag.reshape({1}), poplar::FLOAT, prog));
    else
      parts.push_back(
          popops::map(graph, pe::Const(-1.0f) + pe::_1 * pe::Const(0.0f), {parts[0]}, prog));
    if (flags.valid())
      parts.push_back(flags.mask);
    else
      parts.push_back(popops::map(graph, pe::Const(-1.0f) + pe::_1 * pe::Const(0.0f),
                                  {parts[0].broadcast(kBatch, 0)}, prog));
    created[0] = poplar::concat(parts);
    return prog;
  };
  poplar::OptionFlags options;
  auto final = rnn::Rnn(g, params, reverse, {s0.expand({0})}, {}, {x}, nullptr, nullptr, {outputs},
                        {record}, h.prog(), cell, numShards, options, "loop");
  h.output("outputs", outputs);
  h.output("record", record);
  h.output("final", final[0]);
  poplar::OptionFlags run;
  run.set("target.hostThreads", std::to_string(threads));
  return {h.run(1, run)};
}

} // namespace

TEST(RnnShards, ShardedLoopsGiveTheUnshardedResultsForwardAndReverse) {
  for (const bool reverse : {false, true}) {
    const auto one = runLoop(1, reverse, {}).results;
    for (unsigned shards : {2u, 3u, 7u}) {
      const auto many = runLoop(shards, reverse, {}).results;
      EXPECT_EQ(many.at("outputs"), one.at("outputs")) << shards << " shards";
      EXPECT_EQ(many.at("final"), one.at("final")) << shards << " shards";
      // begin + counter is the absolute step; begin is the shard's first step.
      const auto &rec = many.at("record");
      for (std::size_t t = 0; t < kSteps; ++t) {
        const double begin = rec[t * (3 + kBatch)], counter = rec[t * (3 + kBatch) + 1];
        EXPECT_EQ(begin + counter, static_cast<double>(t)) << shards << " shards, step " << t;
        // Shard i holds steps [⌊i·T/n⌋, ⌊(i+1)·T/n⌋).
        std::size_t shard = 0;
        while (kSteps * (shard + 1) / shards <= t)
          ++shard;
        EXPECT_EQ(begin, static_cast<double>(kSteps * shard / shards)) << "step " << t;
      }
    }
  }
  // The state after the loop: the forward one ends at the last step, the reverse one at step 0.
  const auto fwd = runLoop(1, false, {}).results;
  const std::vector<double> lastRow(fwd.at("outputs").end() - kBatch * kSize,
                                    fwd.at("outputs").end());
  EXPECT_EQ(fwd.at("final"), lastRow);
}

TEST(RnnShards, RunTimeLengthsGiveEntryMasksAndStopAfterTheLongestSequence) {
  const std::vector<std::size_t> lengths{2, 5, 0};
  for (const bool reverse : {false, true})
    for (unsigned shards : {1u, 3u}) {
      const auto r = runLoop(shards, reverse, lengths).results;
      const auto &rec = r.at("record");
      for (std::size_t t = 0; t < kSteps; ++t) {
        const double *row = &rec[t * (3 + kBatch)];
        if (t >= 5) { // past the longest sequence: not run, nothing recorded
          for (std::size_t k = 0; k < 3 + kBatch; ++k)
            EXPECT_EQ(row[k], 0.0) << "step " << t;
          continue;
        }
        EXPECT_EQ(row[0] + row[1], static_cast<double>(t));
        EXPECT_EQ(row[2], 1.0) << "step " << t << ": entry 2 has length 0";
        for (std::size_t b = 0; b < kBatch; ++b)
          EXPECT_EQ(row[3 + b], t < lengths[b] ? 1.0 : 0.0) << "step " << t << " entry " << b;
      }
      // The masked cell: entry b accumulates only its first lengths[b] inputs (forward) or
      // the inputs below its length in the reverse order.
      std::vector<double> s(kBatch * kSize, 0.0);
      for (std::size_t k = 0; k < kSteps; ++k) {
        const std::size_t t = reverse ? kSteps - 1 - k : k;
        if (t >= 5)
          continue;
        for (std::size_t e = 0; e < kBatch * kSize; ++e) {
          const double x = static_cast<double>((t * kBatch * kSize + e) % 11) - 5.0;
          s[e] = s[e] * 0.5 + (t < lengths[e / kSize] ? x : 0.0);
        }
      }
      expectClose(r.at("final"), s, 1e-6, 1e-6, "final state");
    }
}

TEST(RnnShards, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto one = runLoop(3, true, {4, 1, 6}, 1).results;
  const auto two = runLoop(3, true, {4, 1, 6}, 2).results;
  for (const auto &[name, values] : one)
    EXPECT_EQ(two.at(name), values) << name;
}

TEST(RnnShards, OneLengthForTheWholeBatchGivesNoMaskButStopsTheLoop) {
  const auto r = runLoop(1, false, {3}).results;
  const auto &rec = r.at("record");
  for (std::size_t t = 0; t < kSteps; ++t) {
    const double *row = &rec[t * (3 + kBatch)];
    if (t >= 3)
      EXPECT_EQ(row[1], 0.0) << "step " << t << " must not run";
    else
      EXPECT_EQ(row[3], -1.0) << "no batchwise flags with one length";
  }
}

namespace {

/// The gather form over x (kSteps, kBatch, kSize): cell s = s/2 + x_t with temporaries
/// (s, 2s); each gather of n steps starting at step a does
/// acc = acc/2 + Σ_k (k+1)(temp0[a+k] − x[a+k]) and sizes = 10·sizes + n.
std::map<std::string, std::vector<double>> runGather(unsigned stepsPerGather, unsigned numShards,
                                                     unsigned threads = 1,
                                                     const std::vector<std::size_t> &lengths = {}) {
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  Tensor len;
  if (!lengths.empty())
    len = h.input(poplar::INT, {lengths.size()},
                  std::vector<double>(lengths.begin(), lengths.end()), "lengths");
  rnn::RnnParams params = lengths.empty()
                              ? rnn::RnnParams(poplar::FLOAT, kBatch, kSteps, {kSize, kSize})
                              : rnn::RnnParams(poplar::FLOAT, kBatch, kSteps, len, {kSize, kSize});
  std::vector<double> xv(kSteps * kBatch * kSize);
  for (std::size_t i = 0; i < xv.size(); ++i)
    xv[i] = static_cast<double>((i * 7) % 13) - 6.0;
  Tensor x = rnn::createInputTensor(g, params, numShards, "x");
  h.input(x, xv, "x");
  Tensor s0 = rnn::createInitialState(g, params, true, 1, numShards, "s0");
  popops::zero(g, s0, h.prog(), "zeroState");
  Tensor acc = g.addVariable(poplar::FLOAT, {kBatch, kSize}, "acc");
  Tensor sizes = g.addVariable(poplar::FLOAT, {1}, "sizes");
  poputil::mapTensorLinearly(g, acc);
  g.setTileMapping(sizes, 0);
  popops::zero(g, acc, h.prog(), "zeroAcc");
  popops::zero(g, sizes, h.prog(), "zeroSizes");
  rnn::LoopBodyType cell = [](poplar::Graph &graph, const rnn::TimeStepState &,
                              const rnn::RnnBatchwiseFlags &, std::vector<Tensor> &state,
                              const rnn::RnnSlice &slice, std::vector<Tensor> &,
                              poplar::program::Sequence *, const poplar::DebugNameAndId &dnai) {
    poplar::program::Sequence prog;
    Tensor s = state[0].squeeze({0});
    popops::mapInPlace(graph, pe::_1 * pe::Const(0.5f) + pe::_2, {s, slice.inputs[0]}, prog,
                       {dnai, "step"});
    prog.add(poplar::program::Copy(s, slice.interimOut[0]));
    popops::mapWithOutput(graph, pe::_1 * pe::Const(2.0f), {s}, slice.interimOut[1], prog,
                          {dnai, "double"});
    return prog;
  };
  rnn::GatherBodyType gather = [&](poplar::Graph &graph, const rnn::RnnSlice &slice, unsigned n,
                                   poplar::program::Sequence *, const poplar::DebugNameAndId &) {
    poplar::program::Sequence prog;
    EXPECT_EQ(slice.interimIn.dim(0), n * 2u);
    EXPECT_EQ(slice.inputs[0].dim(0), n * kBatch);
    Tensor temps = slice.interimIn.reshapePartial(0, 1, {n, 2});
    Tensor in = slice.inputs[0].reshapePartial(0, 1, {n, kBatch});
    popops::mapInPlace(graph, pe::_1 * pe::Const(0.5f), {acc}, prog);
    for (unsigned k = 0; k < n; ++k)
      popops::mapInPlace(graph, pe::_1 + pe::Const(float(k + 1)) * (pe::_2 - pe::_3),
                         {acc, temps[k][0], in[k]}, prog);
    popops::mapInPlace(graph, pe::_1 * pe::Const(10.0f) + pe::Const(float(n)), {sizes}, prog);
    return prog;
  };
  poplar::OptionFlags options;
  auto final = rnn::Rnn(g, params, {s0}, {}, {x}, Tensor(), 2, h.prog(), cell, {x}, gather,
                        numShards, stepsPerGather, options, "gatherLoop");
  h.output("acc", acc);
  h.output("sizes", sizes);
  h.output("final", final[0]);
  poplar::OptionFlags run;
  run.set("target.hostThreads", std::to_string(threads));
  auto r = h.run(1, run);
  // The host model.
  std::vector<double> s(kBatch * kSize, 0.0), a(kBatch * kSize, 0.0);
  // Steps past the longest sequence do not run: their temporaries are zero.
  std::size_t stepsRun = kSteps;
  if (!lengths.empty())
    stepsRun = std::min<std::size_t>(kSteps, *std::max_element(lengths.begin(), lengths.end()));
  std::vector<std::vector<double>> sAfter(kSteps, std::vector<double>(s.size(), 0.0));
  for (std::size_t t = stepsRun; t-- > 0;) {
    for (std::size_t e = 0; e < s.size(); ++e)
      s[e] = s[e] * 0.5 + xv[t * s.size() + e];
    sAfter[t] = s;
  }
  const std::size_t group = std::min<std::size_t>(stepsPerGather, kSteps);
  std::vector<std::pair<std::size_t, std::size_t>> groups; // (first step, steps)
  for (std::size_t end = kSteps; end >= group; end -= group)
    if (end - group < stepsRun) // a full group is gathered once its first step has run
      groups.push_back({end - group, group});
  if (kSteps % group)
    groups.push_back({0, kSteps % group});
  double sz = 0;
  for (const auto &[first, n] : groups) {
    for (auto &v : a)
      v *= 0.5;
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t e = 0; e < a.size(); ++e)
        a[e] += double(k + 1) * (sAfter[first + k][e] - xv[(first + k) * a.size() + e]);
    sz = sz * 10 + double(n);
  }
  r["wantAcc"] = a;
  r["wantSizes"] = {sz};
  r["wantFinal"] = sAfter[0];
  return r;
}

} // namespace

TEST(RnnGather, GroupsOfStepsReachTheGatherCallbackLastGroupFirst) {
  for (unsigned stepsPerGather : {1u, 3u, 7u, 10u})
    for (unsigned shards : {1u, 2u}) {
      SCOPED_TRACE("stepsPerGather " + std::to_string(stepsPerGather) + ", " +
                   std::to_string(shards) + " shards");
      const auto r = runGather(stepsPerGather, shards);
      expectClose(r.at("acc"), r.at("wantAcc"), 1e-5, 1e-5, "gathered sum");
      EXPECT_EQ(r.at("sizes"), r.at("wantSizes"));
      expectClose(r.at("final"), r.at("wantFinal"), 1e-6, 1e-6, "final state");
    }
}

TEST(RnnGather, RunTimeLengthsSkipTheStepsPastTheLongestSequenceButKeepTheGroups) {
  for (unsigned stepsPerGather : {2u, 3u})
    for (const std::vector<std::size_t> &lengths :
         {std::vector<std::size_t>{4, 1, 2}, std::vector<std::size_t>{0, 0, 1}}) {
      SCOPED_TRACE("stepsPerGather " + std::to_string(stepsPerGather) + ", longest " +
                   std::to_string(lengths[0]));
      const auto r = runGather(stepsPerGather, 1, 1, lengths);
      expectClose(r.at("acc"), r.at("wantAcc"), 1e-5, 1e-5, "gathered sum");
      EXPECT_EQ(r.at("sizes"), r.at("wantSizes"));
      expectClose(r.at("final"), r.at("wantFinal"), 1e-6, 1e-6, "final state");
    }
}

TEST(RnnGather, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto one = runGather(3, 1, 1), two = runGather(3, 1, 2);
  EXPECT_EQ(one.at("acc"), two.at("acc"));
  EXPECT_EQ(one.at("final"), two.at("final"));
}

TEST(RnnGather, BadGatherArgumentsAreRejectedByName) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  rnn::RnnParams params(poplar::FLOAT, kBatch, kSteps, {kSize, kSize});
  Tensor s0 = rnn::createInitialState(g, params, true, 1, 1, "s0");
  rnn::LoopBodyType cell = [](poplar::Graph &, const rnn::TimeStepState &,
                              const rnn::RnnBatchwiseFlags &, std::vector<Tensor> &,
                              const rnn::RnnSlice &, std::vector<Tensor> &,
                              poplar::program::Sequence *, const poplar::DebugNameAndId &) {
    return poplar::program::Sequence();
  };
  rnn::GatherBodyType gather = [](poplar::Graph &, const rnn::RnnSlice &, unsigned,
                                  poplar::program::Sequence *, const poplar::DebugNameAndId &) {
    return poplar::program::Sequence();
  };
  poplar::OptionFlags options;
  auto expectNamed = [&](unsigned numTemps, unsigned steps, const std::string &needle) {
    try {
      rnn::Rnn(g, params, {s0}, {}, {}, Tensor(), numTemps, h.prog(), cell, {}, gather, 1, steps,
               options);
      ADD_FAILURE() << "no exception naming " << needle;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectNamed(2, 0, "stepsPerGather");
  expectNamed(0, 2, "numTemps");
}

namespace {

/// LSTM and GRU forward and backward with the option `numShards`.
std::map<std::string, std::vector<double>> runLayersWithShards(const std::string &numShards) {
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  const poplar::OptionFlags opts{{"numShards", numShards}};
  const std::size_t T = 5, B = 2, I = 3, H = 4;
  auto values = [](std::size_t n, unsigned seed) { return randomValues(n, seed, -0.5, 0.5); };
  Tensor x = h.input(poplar::FLOAT, {T, B, I}, values(T * B * I, 1), "x");
  Tensor dOut = h.input(poplar::FLOAT, {T, B, H}, values(T * B * H, 2), "dOut");
  popnn::lstm::LstmParams lp(poplar::FLOAT, B, T, {I, H});
  popnn::lstm::LstmState init{h.input(poplar::FLOAT, {B, H}, values(B * H, 3), "h0"),
                              h.input(poplar::FLOAT, {B, H}, values(B * H, 4), "c0")};
  popnn::lstm::LstmWeights lw{h.input(poplar::FLOAT, {4, I, H}, values(4 * I * H, 5), "Wi"),
                              h.input(poplar::FLOAT, {4, H, H}, values(4 * H * H, 6), "Wo"),
                              h.input(poplar::FLOAT, {4, H}, values(4 * H, 7), "b")};
  Tensor inter, dx;
  Tensor out = popnn::lstm::lstmFwd(g, lp, h.prog(), init, lw, x, &inter, "lstm", opts);
  popnn::lstm::LstmWeights dw;
  popnn::lstm::lstmBwdWithWU(g, lp, h.prog(), init, inter, lw, x, out, dOut, nullptr, &dx, dw,
                             "lstmBwd", opts);
  h.output("lstmOut", out);
  h.output("lstmDx", dx);
  h.output("lstmDWo", dw.outputWeights);
  popnn::gru::GruParams gp(poplar::FLOAT, B, T, {I, H});
  popnn::gru::GruWeights gw{h.input(poplar::FLOAT, {3, I, H}, values(3 * I * H, 8), "gWi"),
                            h.input(poplar::FLOAT, {3, H, H}, values(3 * H * H, 9), "gWo"),
                            h.input(poplar::FLOAT, {3, H}, values(3 * H, 10), "gb")};
  Tensor gInter, gDx;
  Tensor gOut = popnn::gru::gruFwd(g, gp, init.output, x, gw, &gInter, h.prog(), "gru", opts);
  popnn::gru::GruWeights gdw;
  popnn::gru::gruBwdWithWU(g, gp, h.prog(), init.output, gInter, gw, x, gOut, dOut, &gDx, gdw,
                           "gruBwd", opts, nullptr);
  h.output("gruOut", gOut);
  h.output("gruDx", gDx);
  h.output("gruDWo", gdw.outputWeights);
  return h.run();
}

} // namespace

TEST(RnnShards, LstmAndGruNumShardsOptionChangesNoResult) {
  const auto one = runLayersWithShards("1");
  for (const std::string shards : {"2", "5"}) {
    const auto many = runLayersWithShards(shards);
    for (const auto &[name, values] : one)
      EXPECT_EQ(many.at(name), values) << name << " with " << shards << " shards";
  }
  try {
    runLayersWithShards("6"); // more shards than the 5 steps
    ADD_FAILURE() << "no exception";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("numShards"), std::string::npos) << e.what();
  }
}
