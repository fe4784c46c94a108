// Runs popnn::ctc::calcLossAndGradientLogProbabilities on seeded random batches and prints each
// case (inputs and Tessera's loss and gradient) as one JSON line, for ctc_loss_torch.py to
// recompute with torch.nn.functional.ctc_loss and compare.
#include <iostream>
#include <sstream>

#include <popnn/CTCLoss.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

template <class T> std::string json(const std::vector<T> &v) {
  std::ostringstream os;
  os.precision(17);
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i)
    os << (i ? "," : "") << v[i];
  os << ']';
  return os.str();
}

void runCase(std::size_t T, std::size_t B, std::size_t C, std::size_t maxL, unsigned blank,
             unsigned seed) {
  std::mt19937 gen(seed);
  // Log-probabilities: a row-wise log-softmax of uniform logits.
  auto logits = randomValues(T * B * C, seed, -3, 3);
  std::vector<double> logProbs(logits.size());
  for (std::size_t r = 0; r < T * B; ++r) {
    double m = -INFINITY, s = 0;
    for (std::size_t k = 0; k < C; ++k)
      m = std::max(m, logits[r * C + k]);
    for (std::size_t k = 0; k < C; ++k)
      s += std::exp(logits[r * C + k] - m);
    for (std::size_t k = 0; k < C; ++k)
      logProbs[r * C + k] = static_cast<float>(logits[r * C + k] - m - std::log(s));
  }
  std::vector<double> labels(B * maxL, 0), labelLengths(B), dataLengths(B);
  for (std::size_t b = 0; b < B; ++b) {
    labelLengths[b] = static_cast<double>(gen() % (maxL + 1));
    // Enough timesteps for any label of that length (repeats need a blank between them).
    const std::size_t minT = 2 * static_cast<std::size_t>(labelLengths[b]);
    dataLengths[b] = static_cast<double>(std::max<std::size_t>(minT, T - gen() % (T / 2 + 1)));
    dataLengths[b] = std::min<double>(dataLengths[b], static_cast<double>(T));
    for (std::size_t i = 0; i < labelLengths[b]; ++i) {
      unsigned k = static_cast<unsigned>(gen() % (C - 1));
      labels[b * maxL + i] = k >= blank ? k + 1 : k;
    }
  }
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  auto plan = popnn::ctc::plan(g, poplar::FLOAT, poplar::FLOAT, static_cast<unsigned>(B),
                               static_cast<unsigned>(T), static_cast<unsigned>(maxL),
                               static_cast<unsigned>(C));
  auto data = popnn::ctc::createDataInput(g, poplar::FLOAT, B, T, C, plan);
  auto labelsT = popnn::ctc::createLabelsInput(g, poplar::UNSIGNED_INT, B, maxL, plan);
  h.input(data, logProbs, "data");
  h.input(labelsT, labels, "labels");
  auto dl = h.input(poplar::UNSIGNED_INT, {B}, dataLengths, "dataLengths");
  auto ll = h.input(poplar::UNSIGNED_INT, {B}, labelLengths, "labelLengths");
  auto [loss, grad] = popnn::ctc::calcLossAndGradientLogProbabilities(
      g, poplar::FLOAT, data, labelsT, dl, ll, h.prog(), blank, plan);
  h.output("loss", loss);
  h.output("grad", grad);
  auto r = h.run();
  std::cout << "{\"T\":" << T << ",\"B\":" << B << ",\"C\":" << C << ",\"maxL\":" << maxL
            << ",\"blank\":" << blank << ",\"logProbs\":" << json(logProbs)
            << ",\"labels\":" << json(labels) << ",\"labelLengths\":" << json(labelLengths)
            << ",\"dataLengths\":" << json(dataLengths) << ",\"loss\":" << json(r["loss"])
            << ",\"grad\":" << json(r["grad"]) << "}\n";
}

} // namespace

int main() {
  runCase(12, 4, 6, 4, 0, 1);
  runCase(20, 3, 10, 6, 0, 2);
  runCase(9, 5, 4, 3, 3, 3); // blank is the last class
  runCase(30, 2, 28, 10, 0, 4);
  runCase(150, 8, 40, 40, 0, 5); // speech-sized: long inputs, long labels
  return 0;
}
