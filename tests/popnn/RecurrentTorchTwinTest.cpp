// The PyTorch twin of popnn::lstm, popnn::gru and popnn::rnn: Tessera runs an LSTM (PopLibs'
// default gate order), a GRU (resetAfter) and a vanilla tanh RNN forward and backward in FLOAT,
// writes inputs and results to a file, and torch/lstm_gru_twin.py rebuilds both as nn.LSTM /
// nn.GRU with the same weights and compares outputs and every gradient (nn.RNN for the vanilla
// layer). Skipped when /usr/bin/python3 cannot import torch.
#include <cstdio>
#include <fstream>
#include <sys/wait.h>

#include <popnn/Gru.hpp>
#include <popnn/Lstm.hpp>
#include <popnn/Recurrent.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;

#ifndef POPNN_TWIN_SCRIPT
#error "POPNN_TWIN_SCRIPT must name tests/popnn/torch/lstm_gru_twin.py"
#endif

namespace {

constexpr std::size_t T = 4, B = 3, I = 5, H = 6;

struct Dump {
  std::ofstream out;
  void add(const std::string &name, const std::vector<std::size_t> &shape,
           const std::vector<double> &values) {
    out << name << ' ';
    for (std::size_t i = 0; i < shape.size(); ++i)
      out << (i ? "," : "") << shape[i];
    char buf[32];
    for (double v : values) {
      std::snprintf(buf, sizeof buf, " %.9g", v);
      out << buf;
    }
    out << '\n';
  }
};

/// Registers `values` as a device input and writes it to the dump.
Tensor input(Harness &h, Dump &dump, const std::string &name, const std::vector<std::size_t> &shape,
             const std::vector<double> &values) {
  dump.add(name, shape, values);
  return h.input(poplar::FLOAT, shape, values, name);
}

void writeResults(Dump &dump, const std::map<std::string, std::vector<double>> &results,
                  const std::map<std::string, Tensor> &tensors) {
  for (const auto &[name, t] : tensors)
    dump.add(name, t.shape(), results.at(name));
}

std::vector<double> values(std::size_t n, unsigned seed, double scale) {
  return roundTo(poplar::FLOAT, randomValues(n, seed, -scale, scale));
}

TEST(RecurrentTorchTwin, LstmGruAndRnnOutputsAndGradientsMatchPyTorch) {
  const std::string path = testing::TempDir() + "popnn_lstm_gru_twin.txt";
  Dump dump{std::ofstream(path)};
  std::map<std::string, std::vector<double>> results;
  {
    Harness h(Layout::MULTI_TILE);
    namespace lstm = popnn::lstm;
    lstm::LstmParams params(poplar::FLOAT, B, T, {I, H});
    Tensor x = input(h, dump, "lstm.x", {T, B, I}, values(T * B * I, 1, 1.0));
    lstm::LstmState init{input(h, dump, "lstm.h0", {B, H}, values(B * H, 2, 0.5)),
                         input(h, dump, "lstm.c0", {B, H}, values(B * H, 3, 0.5))};
    lstm::LstmWeights w{input(h, dump, "lstm.Wi", {4, I, H}, values(4 * I * H, 4, 0.5)),
                        input(h, dump, "lstm.Wo", {4, H, H}, values(4 * H * H, 5, 0.5)),
                        input(h, dump, "lstm.b", {4, H}, values(4 * H, 6, 0.5))};
    Tensor dOut = input(h, dump, "lstm.dOut", {T, B, H}, values(T * B * H, 7, 1.0));
    Tensor inter, dx;
    Tensor out = lstm::lstmFwd(h.graph(), params, h.prog(), init, w, x, &inter);
    lstm::LstmWeights dw;
    const auto dInit = lstm::lstmBwdWithWU(h.graph(), params, h.prog(), init, inter, w, x, out,
                                           dOut, nullptr, &dx, dw);
    const std::map<std::string, Tensor> outs{{"lstm.out", out},
                                             {"lstm.dx", dx},
                                             {"lstm.dh0", dInit.output},
                                             {"lstm.dc0", dInit.cellState},
                                             {"lstm.dWi", dw.inputWeights},
                                             {"lstm.dWo", dw.outputWeights},
                                             {"lstm.db", dw.biases}};
    for (const auto &[name, t] : outs)
      h.output(name, t);
    writeResults(dump, h.run(), outs);
  }
  {
    Harness h(Layout::MULTI_TILE);
    namespace gru = popnn::gru;
    gru::GruParams params(poplar::FLOAT, B, T, {I, H});
    params.resetAfter = true;
    Tensor x = input(h, dump, "gru.x", {T, B, I}, values(T * B * I, 11, 1.0));
    Tensor h0 = input(h, dump, "gru.h0", {B, H}, values(B * H, 12, 0.5));
    gru::GruWeights w{input(h, dump, "gru.Wi", {3, I, H}, values(3 * I * H, 13, 0.5)),
                      input(h, dump, "gru.Wo", {3, H, H}, values(3 * H * H, 14, 0.5)),
                      input(h, dump, "gru.b", {3, 2, H}, values(3 * 2 * H, 15, 0.5))};
    Tensor dOut = input(h, dump, "gru.dOut", {T, B, H}, values(T * B * H, 16, 1.0));
    Tensor inter, dx;
    Tensor out = gru::gruFwd(h.graph(), params, h0, x, w, &inter, h.prog());
    gru::GruWeights dw;
    Tensor dh0 = gru::gruBwdWithWU(h.graph(), params, h.prog(), h0, inter, w, x, out, dOut, &dx, dw,
                                   {}, {}, nullptr);
    const std::map<std::string, Tensor> outs{{"gru.out", out},
                                             {"gru.dx", dx},
                                             {"gru.dh0", dh0},
                                             {"gru.dWi", dw.inputWeights},
                                             {"gru.dWo", dw.outputWeights},
                                             {"gru.db", dw.biases}};
    for (const auto &[name, t] : outs)
      h.output(name, t);
    writeResults(dump, h.run(), outs);
  }
  {
    Harness h(Layout::MULTI_TILE);
    namespace rnn = popnn::rnn;
    Tensor x = input(h, dump, "rnn.x", {T, B, I}, values(T * B * I, 21, 1.0));
    Tensor y0 = input(h, dump, "rnn.h0", {B, H}, values(B * H, 22, 0.5));
    Tensor Wff = input(h, dump, "rnn.Wff", {I, H}, values(I * H, 23, 0.5));
    Tensor Wfb = input(h, dump, "rnn.Wfb", {H, H}, values(H * H, 24, 0.5));
    Tensor b = input(h, dump, "rnn.b", {H}, values(H, 25, 0.5));
    // rnnBwdSequence takes the output gradients batch-major: [B][T][H].
    Tensor dOut = input(h, dump, "rnn.dOutBatchMajor", {B, T, H}, values(B * T * H, 26, 1.0));
    const auto nl = popnn::NonLinearityType::TANH;
    Tensor y = rnn::rnnFwdSequence(h.graph(), h.prog(), y0, nullptr, b, Wff, Wfb, x, nl,
                                   poplar::FLOAT, false);
    auto [dx, dWff, dWfb, db] = rnn::rnnBwdSequence(h.graph(), true, false, h.prog(), y0, y, b, Wff,
                                                    Wfb, dOut, x, nl, poplar::FLOAT);
    const std::map<std::string, Tensor> outs{
        {"rnn.out", y}, {"rnn.dx", dx}, {"rnn.dWff", dWff}, {"rnn.dWfb", dWfb}, {"rnn.db", db}};
    for (const auto &[name, t] : outs)
      h.output(name, t);
    writeResults(dump, h.run(), outs);
  }
  dump.out.close();

  const std::string command =
      std::string("/usr/bin/python3 ") + POPNN_TWIN_SCRIPT + " " + path + " 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr) << command;
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe))
    output += buf;
  const int status = pclose(pipe);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77)
    GTEST_SKIP() << output;
  EXPECT_EQ(code, 0) << output;
  std::cout << output;
}

} // namespace
