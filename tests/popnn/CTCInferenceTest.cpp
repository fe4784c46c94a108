// popnn::ctc_infer beam search against reference/CTCInference.hpp: with a beam wide enough to
// keep every prefix it must find exactly the most probable label sequences that brute-force
// enumeration of every path finds; with narrow beams it must keep the same beams as the reference
// beam search. Log-probability and logits inputs, FLOAT and HALF, blank first or last, varying
// data lengths, inputs on one tile or mapped by the plan, 1 and 2 host threads, error paths.
#include <cmath>

#include <poplar/exceptions.hpp>
#include <popnn/CTCInference.hpp>
#include <popnn/CTCLoss.hpp>
#include <poputil/exceptions.hpp>
#include <reference/CTCInference.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

std::vector<double> logSoftmaxRows(const std::vector<double> &x, std::size_t C) {
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < x.size() / C; ++r) {
    double m = -INFINITY, s = 0;
    for (std::size_t k = 0; k < C; ++k)
      m = std::max(m, x[r * C + k]);
    for (std::size_t k = 0; k < C; ++k)
      s += std::exp(x[r * C + k] - m);
    for (std::size_t k = 0; k < C; ++k)
      y[r * C + k] = x[r * C + k] - m - std::log(s);
  }
  return y;
}

struct DecodeCase {
  std::size_t T, B, C;
  unsigned blank, beamWidth, topPaths;
  std::vector<unsigned> dataLengths;
};

struct DecodeResult {
  std::vector<double> probs, lengths, labels;
};

/// Runs beam search on [T][B][C] `data` (log-probabilities, or logits when `logits`).
DecodeResult runDecode(const DecodeCase &c, const std::vector<double> &data,
                       const poplar::Type &type, bool logits, Layout layout,
                       unsigned threads = 1) {
  Harness h(layout);
  auto &g = h.graph();
  auto plan = popnn::ctc_infer::plan(g, type, static_cast<unsigned>(c.B),
                                     static_cast<unsigned>(c.T), static_cast<unsigned>(c.C),
                                     c.beamWidth);
  poplar::Tensor in;
  if (layout == Layout::MULTI_TILE) {
    in = popnn::ctc_infer::createDataInput(g, type, c.B, c.T, c.C, plan);
    h.input(in, data, "data");
  } else {
    in = h.input(type, {c.T, c.B, c.C}, data, "data");
  }
  std::vector<double> dl(c.dataLengths.begin(), c.dataLengths.end());
  auto lengths = h.input(poplar::UNSIGNED_INT, {c.B}, dl, "dataLengths");
  auto [probs, labelLengths, decoded] =
      logits ? popnn::ctc_infer::beamSearchDecoderLogits(g, in, lengths, h.prog(), c.blank,
                                                         c.beamWidth, c.topPaths, plan)
             : popnn::ctc_infer::beamSearchDecoderLogProbabilities(
                   g, in, lengths, h.prog(), c.blank, c.beamWidth, c.topPaths, plan);
  EXPECT_EQ(probs.shape(), (std::vector<std::size_t>{c.B, c.topPaths}));
  EXPECT_EQ(labelLengths.shape(), (std::vector<std::size_t>{c.B, c.topPaths}));
  EXPECT_EQ(decoded.shape(), (std::vector<std::size_t>{c.B, c.topPaths, c.T}));
  EXPECT_EQ(probs.elementType(), type);
  h.output("probs", probs);
  h.output("lengths", labelLengths);
  h.output("labels", decoded);
  poplar::OptionFlags engineOptions;
  engineOptions.set("target.hostThreads", std::to_string(threads));
  auto r = h.run(1, engineOptions);
  return {r["probs"], r["lengths"], r["labels"]};
}

std::vector<double> entry(const DecodeCase &c, const std::vector<double> &v, std::size_t b) {
  std::vector<double> e(c.T * c.C);
  for (std::size_t t = 0; t < c.T; ++t)
    for (std::size_t k = 0; k < c.C; ++k)
      e[t * c.C + k] = v[(t * c.B + b) * c.C + k];
  return e;
}

/// Checks entry b's decoded paths against `want` (most probable first).
void expectPaths(const DecodeCase &c, const DecodeResult &got, std::size_t b,
                 const std::vector<reference::DecodedSequence> &want, double tol,
                 const std::string &what) {
  for (std::size_t path = 0; path < c.topPaths; ++path) {
    const std::size_t i = b * c.topPaths + path;
    if (path >= want.size()) {
      EXPECT_TRUE(std::isinf(got.probs[i]) && got.probs[i] < 0) << what << " path " << path;
      EXPECT_EQ(got.lengths[i], 0.0) << what << " path " << path;
      continue;
    }
    ASSERT_EQ(got.lengths[i], static_cast<double>(want[path].labels.size()))
        << what << " entry " << b << " path " << path;
    for (std::size_t t = 0; t < c.T; ++t) {
      const double label = t < want[path].labels.size() ? want[path].labels[t] : c.blank;
      EXPECT_EQ(got.labels[i * c.T + t], label) << what << " entry " << b << " path " << path;
    }
    EXPECT_NEAR(got.probs[i], want[path].logProb, tol) << what << " entry " << b;
  }
}

TEST(CTCInferenceReference, WideBeamSearchIsExact) {
  const std::size_t T = 5, C = 3;
  for (unsigned seed : {1u, 2u, 3u}) {
    const auto lp = logSoftmaxRows(randomValues(T * C, seed, -2, 2), C);
    const auto exact = reference::bruteForceDecode(lp, C, T, 0);
    const auto beams = reference::beamSearchDecode(lp, C, T, 0, 64);
    ASSERT_GE(beams.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(beams[i].labels, exact[i].labels) << "seed " << seed << " rank " << i;
      EXPECT_NEAR(beams[i].logProb, exact[i].logProb, 1e-9);
    }
  }
}

TEST(CTCInference, WideBeamFindsTheBruteForceBestPaths) {
  // 3 classes (2 labels), 5 timesteps: at most 63 prefixes, so a beam of 64 never prunes one.
  const DecodeCase c{5, 3, 3, 0, 64, 4, {5, 4, 2}};
  const auto data = roundTo(poplar::FLOAT, logSoftmaxRows(randomValues(c.T * c.B * c.C, 201), c.C));
  const auto got = runDecode(c, data, poplar::FLOAT, false, Layout::MULTI_TILE);
  for (std::size_t b = 0; b < c.B; ++b)
    expectPaths(c, got, b, reference::bruteForceDecode(entry(c, data, b), c.C, c.dataLengths[b], c.blank),
                1e-4, "brute force");
}

struct NarrowCase {
  bool logits, half;
  unsigned blank;
  Layout layout;
};

class CTCInferenceNarrow : public testing::TestWithParam<NarrowCase> {};

std::string narrowName(const testing::TestParamInfo<NarrowCase> &info) {
  return std::string(info.param.logits ? "Logits" : "LogProbs") +
         (info.param.half ? "_half" : "_float") + "_blank" + std::to_string(info.param.blank) +
         "_" + layoutName(info.param.layout);
}

TEST_P(CTCInferenceNarrow, KeepsTheReferenceBeams) {
  const auto v = GetParam();
  const poplar::Type type = v.half ? poplar::HALF : poplar::FLOAT;
  const DecodeCase c{10, 4, 5, v.blank, 3, 2, {10, 7, 1, 9}};
  auto x = randomValues(c.T * c.B * c.C, 211, -3, 3);
  if (!v.logits)
    x = logSoftmaxRows(x, c.C);
  const auto data = roundTo(type, x);
  const auto got = runDecode(c, data, type, v.logits, v.layout);
  for (std::size_t b = 0; b < c.B; ++b) {
    auto lp = entry(c, data, b);
    if (v.logits)
      lp = logSoftmaxRows(lp, c.C);
    if (v.half && v.logits)
      lp = roundTo(poplar::HALF, lp); // the device's log-softmax is in half
    expectPaths(c, got, b,
                reference::beamSearchDecode(lp, c.C, c.dataLengths[b], c.blank, c.beamWidth),
                v.half ? 2e-2 : 1e-4, "beam search");
  }
}

INSTANTIATE_TEST_SUITE_P(Beams, CTCInferenceNarrow,
                         testing::Values(NarrowCase{false, false, 0, Layout::SINGLE_TILE},
                                         NarrowCase{false, false, 0, Layout::MULTI_TILE},
                                         NarrowCase{false, false, 4, Layout::MULTI_TILE},
                                         NarrowCase{true, false, 0, Layout::MULTI_TILE},
                                         NarrowCase{false, true, 0, Layout::MULTI_TILE},
                                         NarrowCase{true, true, 2, Layout::SINGLE_TILE}),
                         narrowName);

TEST(CTCInference, NoTimestepsDecodeTheEmptySequenceWithProbabilityOne) {
  const DecodeCase c{4, 2, 3, 0, 2, 2, {0, 4}};
  const auto data = roundTo(poplar::FLOAT, logSoftmaxRows(randomValues(c.T * c.B * c.C, 221), c.C));
  const auto got = runDecode(c, data, poplar::FLOAT, false, Layout::SINGLE_TILE);
  EXPECT_EQ(got.probs[0], 0.0);
  EXPECT_EQ(got.lengths[0], 0.0);
  EXPECT_TRUE(std::isinf(got.probs[1]) && got.probs[1] < 0); // no second beam survives
}

TEST(CTCInferenceThreads, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const DecodeCase c{12, 5, 6, 0, 4, 3, {12, 11, 6, 12, 3}};
  const auto data = roundTo(poplar::FLOAT, randomValues(c.T * c.B * c.C, 231, -3, 3));
  const auto one = runDecode(c, data, poplar::FLOAT, true, Layout::MULTI_TILE, 1);
  const auto two = runDecode(c, data, poplar::FLOAT, true, Layout::MULTI_TILE, 2);
  EXPECT_EQ(one.probs, two.probs);
  EXPECT_EQ(one.lengths, two.lengths);
  EXPECT_EQ(one.labels, two.labels);
}

template <class E = poputil::poplibs_error, class F>
void expectError(F f, const std::string &culprit) {
  try {
    f();
    ADD_FAILURE() << "expected an exception naming " << culprit;
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

TEST(CTCInferenceErrors, BadArgumentsAreRefusedNamingTheCulprit) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  auto plan = popnn::ctc_infer::plan(g, poplar::FLOAT, 2, 4, 3, 2);
  auto data = popnn::ctc_infer::createDataInput(g, poplar::FLOAT, 2, 4, 3, plan);
  auto lengths = g.addVariable(poplar::UNSIGNED_INT, {2}, "lengths");
  g.setTileMapping(lengths, 0);
  using popnn::ctc_infer::beamSearchDecoderLogProbabilities;
  expectError([&] { beamSearchDecoderLogProbabilities(g, data, lengths, h.prog(), 0, 2, 3, plan); },
              "topPaths");
  expectError([&] { beamSearchDecoderLogProbabilities(g, data, lengths, h.prog(), 3, 2, 1, plan); },
              "blankClass");
  expectError([&] { beamSearchDecoderLogProbabilities(g, data, lengths, h.prog(), 0, 0, 1, plan); },
              "beamwidth");
  auto intLengths = g.addVariable(poplar::INT, {2}, "intLengths");
  expectError(
      [&] { beamSearchDecoderLogProbabilities(g, data, intLengths, h.prog(), 0, 2, 1, plan); },
      "'dataLengths'");
  auto lossPlan = popnn::ctc::plan(g, poplar::FLOAT, poplar::FLOAT, 2, 4, 2, 3);
  expectError(
      [&] { beamSearchDecoderLogProbabilities(g, data, lengths, h.prog(), 0, 2, 1, lossPlan); },
      "'plan'");
  expectError<poplar::invalid_option>(
      [&] {
        beamSearchDecoderLogProbabilities(g, data, lengths, h.prog(), 0, 2, 1, plan, {},
                                          {{"beamWidth", "4"}});
      },
      "beamWidth");
  expectError([&] { popnn::ctc_infer::plan(g, poplar::INT, 2, 4, 3, 2); }, "inType");
}

} // namespace
