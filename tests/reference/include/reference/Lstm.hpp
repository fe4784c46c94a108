// Golden reference for popnn/Lstm.hpp: a basic LSTM cell (sigmoid gates, tanh candidate and
// cell activation, no peepholes) over a sequence, and its exact gradients by backpropagation
// through time.
//
// Layouts (flat, row-major): x [T][B][I]; h0, c0 [B][H]; Wi [4][I][H]; Wo [4][H][H]; b [4][H];
// the outermost 4 in PopLibs' default order: forget, input, candidate, output.
// Step t:  f = σ(x_t Wi[0] + h_{t-1} Wo[0] + b[0]),  i = σ(… [1]),  g = tanh(… [2]),
//          o = σ(… [3]);  c_t = f c_{t-1} + i g;  h_t = o tanh(c_t).
// Run-time lengths (optional `lengths`, one per batch entry; empty: every entry runs T steps),
// as PopLibs' varTimeSteps: at a step t >= lengths[n] every gate of entry n is multiplied by 0,
// so the step's recorded c_t and h_t are 0, and the state carried on (and returned at the end)
// stays the one after the entry's last step lengths[n] - 1 (the initial state if 0).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace reference {

struct LstmShape {
  std::size_t T, B, I, H;
};

struct LstmForward {
  std::vector<double> output; ///< h_t for every step, [T][B][H]
  std::vector<double> cell;   ///< c_t for every step, [T][B][H]
  std::vector<double> gates;  ///< activated f, i, g, o for every step, [T][4][B][H]
  std::vector<double> finalOutput; ///< h after the last step run, [B][H]
  std::vector<double> finalCell;   ///< c after the last step run, [B][H]
};

/// The number of steps run: max(lengths), at most T (T if lengths is empty).
inline std::size_t lstmStepsRun(std::size_t T, const std::vector<std::size_t> &lengths) {
  if (lengths.empty())
    return T;
  std::size_t m = 0;
  for (std::size_t l : lengths)
    m = l > m ? l : m;
  return m < T ? m : T;
}

/// 1 if entry n runs step t (t < lengths[n]), else 0.
inline double lstmStepMask(const std::vector<std::size_t> &lengths, std::size_t t, std::size_t n) {
  return lengths.empty() || t < lengths[n] ? 1.0 : 0.0;
}

inline double lstmSigmoid(double x) { return 1 / (1 + std::exp(-x)); }

inline LstmForward lstmForward(const LstmShape &s, const std::vector<double> &x,
                               const std::vector<double> &h0, const std::vector<double> &c0,
                               const std::vector<double> &Wi, const std::vector<double> &Wo,
                               const std::vector<double> &b,
                               const std::vector<std::size_t> &lengths = {}) {
  const std::size_t T = s.T, B = s.B, I = s.I, H = s.H;
  LstmForward r{std::vector<double>(T * B * H),
                std::vector<double>(T * B * H),
                std::vector<double>(T * 4 * B * H),
                {},
                {}};
  std::vector<double> h = h0, c = c0;
  const std::size_t run = lstmStepsRun(T, lengths);
  for (std::size_t t = 0; t < run; ++t) {
    for (std::size_t n = 0; n < B; ++n) {
      for (std::size_t j = 0; j < H; ++j) {
        double a[4];
        for (std::size_t u = 0; u < 4; ++u) {
          double sum = b[u * H + j];
          for (std::size_t k = 0; k < I; ++k)
            sum += x[(t * B + n) * I + k] * Wi[(u * I + k) * H + j];
          for (std::size_t k = 0; k < H; ++k)
            sum += h[n * H + k] * Wo[(u * H + k) * H + j];
          a[u] = (u == 2 ? std::tanh(sum) : lstmSigmoid(sum)) * lstmStepMask(lengths, t, n);
          r.gates[((t * 4 + u) * B + n) * H + j] = a[u];
        }
        const double cNew = a[0] * c[n * H + j] + a[1] * a[2];
        r.cell[(t * B + n) * H + j] = cNew;
        r.output[(t * B + n) * H + j] = a[3] * std::tanh(cNew);
      }
    }
    for (std::size_t e = 0; e < B * H; ++e)
      if (lstmStepMask(lengths, t, e / H) != 0) { // past its end an entry holds its state
        h[e] = r.output[t * B * H + e];
        c[e] = r.cell[t * B * H + e];
      }
  }
  r.finalOutput = h;
  r.finalCell = c;
  return r;
}

struct LstmGradients {
  std::vector<double> dx;  ///< [T][B][I]
  std::vector<double> dh0; ///< [B][H]
  std::vector<double> dc0; ///< [B][H]
  std::vector<double> dWi; ///< [4][I][H]
  std::vector<double> dWo; ///< [4][H][H]
  std::vector<double> db;  ///< [4][H]
};

/// Gradients of L = Σ dOut·h (every step; zero rows for steps whose output is not used) +
/// dcLast·(the final cell state) + dhLast·(the final output state; optional) with respect to
/// every input. With `lengths`, dOut at a step past an entry's end is ignored (that output is a
/// constant zero); the state gradients pass such a step unchanged and its gates get none.
inline LstmGradients lstmBackward(const LstmShape &s, const std::vector<double> &x,
                                  const std::vector<double> &h0, const std::vector<double> &c0,
                                  const std::vector<double> &Wi, const std::vector<double> &Wo,
                                  const std::vector<double> &b, const std::vector<double> &dOut,
                                  const std::vector<double> &dcLast,
                                  const std::vector<std::size_t> &lengths = {},
                                  const std::vector<double> &dhLast = {}) {
  const std::size_t T = s.T, B = s.B, I = s.I, H = s.H;
  const LstmForward fw = lstmForward(s, x, h0, c0, Wi, Wo, b, lengths);
  LstmGradients g{std::vector<double>(T * B * I), std::vector<double>(B * H),
                  std::vector<double>(B * H),     std::vector<double>(4 * I * H),
                  std::vector<double>(4 * H * H), std::vector<double>(4 * H)};
  std::vector<double> dh(B * H, 0.0), dc = dcLast, pre(4 * B * H);
  if (dc.empty())
    dc.assign(B * H, 0.0);
  if (!dhLast.empty())
    dh = dhLast;
  for (std::size_t t = lstmStepsRun(T, lengths); t-- > 0;) {
    const std::vector<double> dhHeld = dh, dcHeld = dc;
    const double *hPrev = t == 0 ? h0.data() : &fw.output[(t - 1) * B * H];
    const double *cPrev = t == 0 ? c0.data() : &fw.cell[(t - 1) * B * H];
    for (std::size_t n = 0; n < B; ++n)
      for (std::size_t j = 0; j < H; ++j) {
        const std::size_t e = n * H + j;
        auto gate = [&](std::size_t u) { return fw.gates[((t * 4 + u) * B + n) * H + j]; };
        const double f = gate(0), i = gate(1), gg = gate(2), o = gate(3);
        const double tc = std::tanh(fw.cell[t * B * H + e]);
        const double dhTot = dh[e] + dOut[t * B * H + e];
        const double dcTot = dc[e] + dhTot * o * (1 - tc * tc);
        pre[0 * B * H + e] = dcTot * cPrev[e] * f * (1 - f);
        pre[1 * B * H + e] = dcTot * gg * i * (1 - i);
        pre[2 * B * H + e] = dcTot * i * (1 - gg * gg);
        pre[3 * B * H + e] = dhTot * tc * o * (1 - o);
        for (std::size_t u = 0; u < 4; ++u) // a masked gate is a constant 0
          pre[u * B * H + e] *= lstmStepMask(lengths, t, n);
        dc[e] = dcTot * f;
      }
    // Gradients through the affine maps of every gate.
    std::vector<double> dhPrev(B * H, 0.0);
    for (std::size_t u = 0; u < 4; ++u)
      for (std::size_t n = 0; n < B; ++n)
        for (std::size_t j = 0; j < H; ++j) {
          const double d = pre[(u * B + n) * H + j];
          g.db[u * H + j] += d;
          for (std::size_t k = 0; k < I; ++k) {
            g.dWi[(u * I + k) * H + j] += x[(t * B + n) * I + k] * d;
            g.dx[(t * B + n) * I + k] += Wi[(u * I + k) * H + j] * d;
          }
          for (std::size_t k = 0; k < H; ++k) {
            g.dWo[(u * H + k) * H + j] += hPrev[n * H + k] * d;
            dhPrev[n * H + k] += Wo[(u * H + k) * H + j] * d;
          }
        }
    for (std::size_t e = 0; e < B * H; ++e)
      if (lstmStepMask(lengths, t, e / H) == 0) { // the held state passes its gradient on
        dhPrev[e] = dhHeld[e];
        dc[e] = dcHeld[e];
      }
    dh = dhPrev;
  }
  g.dh0 = dh;
  g.dc0 = dc;
  return g;
}

} // namespace reference
