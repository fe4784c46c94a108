// Golden reference for popnn/Gru.hpp: a basic GRU cell (sigmoid gates, tanh candidate) over a
// sequence, with the reset gate applied before the recurrent weights or after them
// (resetAfter, PyTorch's nn.GRU), and its exact gradients by backpropagation through time.
//
// Layouts (flat, row-major): x [T][B][I]; h0 [B][H]; Wi [3][I][H]; Wo [3][H][H]; the outermost 3
// in PopLibs' default order reset, update, candidate; b [3][H], or [3][2][H] with resetAfter
// (b[u][0] input bias, b[u][1] recurrent bias).
// Step t:  r = σ(x Wi[0] + h Wo[0] + b_r),  u = σ(x Wi[1] + h Wo[1] + b_u),
//          c = tanh(x Wi[2] + (r∘h) Wo[2] + b_c)                      (reset before)
//          c = tanh(x Wi[2] + b[2][0] + r∘(h Wo[2] + b[2][1]))        (resetAfter)
//          h_t = u∘h + (1−u)∘c;  with resetAfter b_r = b[0][0] + b[0][1], b_u likewise.
// AUGRU (att [B][T] given): u is replaced by (1 − att[n][t]) u in the state update.
// Run-time lengths (optional `lengths`, one per batch entry), as PopLibs' varTimeSteps: at a
// step t >= lengths[n] the gates r, u, c of entry n are multiplied by 0, so its recorded output
// is 0, and its state h stays the one after step lengths[n] - 1 (h0 if 0).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace reference {

struct GruShape {
  std::size_t T, B, I, H;
  bool resetAfter;
};

struct GruForward {
  std::vector<double> output;  ///< h_t for every step, [T][B][H]
  std::vector<double> r, u, c; ///< gate values for every step, [T][B][H]
  std::vector<double> rec;     ///< the candidate's recurrent term per step, [T][B][H]
  std::vector<double> finalOutput; ///< the state h after the last step, [B][H]
};

/// 1 if entry n runs step t (t < lengths[n]), else 0.
inline double gruStepMask(const std::vector<std::size_t> &lengths, std::size_t t, std::size_t n) {
  return lengths.empty() || t < lengths[n] ? 1.0 : 0.0;
}

inline double gruSigmoid(double x) { return 1 / (1 + std::exp(-x)); }

/// Bias of unit `unit`, element j: (input part, recurrent part).
inline std::pair<double, double> gruBias(const GruShape &s, const std::vector<double> &b,
                                         std::size_t unit, std::size_t j) {
  if (!s.resetAfter)
    return {b[unit * s.H + j], 0.0};
  return {b[(unit * 2 + 0) * s.H + j], b[(unit * 2 + 1) * s.H + j]};
}

/// The update gate as the state update uses it: u, or (1 − att) u for the AUGRU.
inline double gruAttended(const GruShape &s, const std::vector<double> &att, std::size_t t,
                          std::size_t n, double u) {
  return att.empty() ? u : (1 - att[n * s.T + t]) * u;
}

inline GruForward gruForward(const GruShape &s, const std::vector<double> &x,
                             const std::vector<double> &h0, const std::vector<double> &Wi,
                             const std::vector<double> &Wo, const std::vector<double> &b,
                             const std::vector<double> &att = {},
                             const std::vector<std::size_t> &lengths = {}) {
  const std::size_t T = s.T, B = s.B, I = s.I, H = s.H, n = T * B * H;
  GruForward f{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
               std::vector<double>(n), std::vector<double>(n), {}};
  std::vector<double> h = h0;
  auto xw = [&](std::size_t t, std::size_t bi, std::size_t unit, std::size_t j) {
    double sum = 0;
    for (std::size_t k = 0; k < I; ++k)
      sum += x[(t * B + bi) * I + k] * Wi[(unit * I + k) * H + j];
    return sum;
  };
  auto hw = [&](const std::vector<double> &v, std::size_t bi, std::size_t unit, std::size_t j) {
    double sum = 0;
    for (std::size_t k = 0; k < H; ++k)
      sum += v[bi * H + k] * Wo[(unit * H + k) * H + j];
    return sum;
  };
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t base = t * B * H;
    for (std::size_t bi = 0; bi < B; ++bi)
      for (std::size_t j = 0; j < H; ++j) {
        const auto br = gruBias(s, b, 0, j), bu = gruBias(s, b, 1, j);
        f.r[base + bi * H + j] =
            gruSigmoid(xw(t, bi, 0, j) + hw(h, bi, 0, j) + br.first + br.second);
        f.u[base + bi * H + j] =
            gruSigmoid(xw(t, bi, 1, j) + hw(h, bi, 1, j) + bu.first + bu.second);
        f.r[base + bi * H + j] *= gruStepMask(lengths, t, bi);
        f.u[base + bi * H + j] *= gruStepMask(lengths, t, bi);
      }
    std::vector<double> rh(B * H);
    for (std::size_t e = 0; e < B * H; ++e)
      rh[e] = f.r[base + e] * h[e];
    for (std::size_t bi = 0; bi < B; ++bi)
      for (std::size_t j = 0; j < H; ++j) {
        const std::size_t e = bi * H + j;
        const auto bc = gruBias(s, b, 2, j);
        double pre;
        if (s.resetAfter) {
          f.rec[base + e] = hw(h, bi, 2, j) + bc.second;
          pre = xw(t, bi, 2, j) + bc.first + f.r[base + e] * f.rec[base + e];
        } else {
          f.rec[base + e] = rh[e];
          pre = xw(t, bi, 2, j) + hw(rh, bi, 2, j) + bc.first;
        }
        f.c[base + e] = std::tanh(pre) * gruStepMask(lengths, t, bi);
      }
    for (std::size_t e = 0; e < B * H; ++e) {
      const double u = gruAttended(s, att, t, e / H, f.u[base + e]);
      f.output[base + e] = u * h[e] + (1 - u) * f.c[base + e];
    }
    for (std::size_t e = 0; e < B * H; ++e)
      if (gruStepMask(lengths, t, e / H) != 0) // past its end an entry holds its state
        h[e] = f.output[base + e];
  }
  f.finalOutput = h;
  return f;
}

struct GruGradients {
  std::vector<double> dx, dh0, dWi, dWo, db; ///< shaped like x, h0, Wi, Wo, b
  std::vector<double> datt;                  ///< shaped like att (AUGRU only)
};

/// Gradients of L = Σ dOut·h over every step (zero rows for unused steps) + dhLast·(the final
/// state; optional). With `lengths`, a step past an entry's end gives its gates no gradient and
/// passes the state gradient on unchanged (its recorded output is a constant 0).
inline GruGradients gruBackward(const GruShape &s, const std::vector<double> &x,
                                const std::vector<double> &h0, const std::vector<double> &Wi,
                                const std::vector<double> &Wo, const std::vector<double> &b,
                                const std::vector<double> &dOut,
                                const std::vector<double> &att = {},
                                const std::vector<std::size_t> &lengths = {},
                                const std::vector<double> &dhLast = {}) {
  const std::size_t T = s.T, B = s.B, I = s.I, H = s.H;
  const GruForward f = gruForward(s, x, h0, Wi, Wo, b, att, lengths);
  GruGradients g{std::vector<double>(x.size()),  {},
                 std::vector<double>(Wi.size()), std::vector<double>(Wo.size()),
                 std::vector<double>(b.size()),  std::vector<double>(att.size())};
  std::vector<double> dh(B * H, 0.0);
  if (!dhLast.empty())
    dh = dhLast;
  auto dbAt = [&](std::size_t unit, std::size_t j, bool recurrent) -> double & {
    if (!s.resetAfter)
      return g.db[unit * H + j];
    return g.db[(unit * 2 + (recurrent ? 1 : 0)) * H + j];
  };
  for (std::size_t t = T; t-- > 0;) {
    const std::size_t base = t * B * H;
    const double *hPrev = t == 0 ? h0.data() : &f.output[(t - 1) * B * H];
    std::vector<double> dr(B * H), du(B * H), dcPre(B * H), dRec(B * H), dhPrev(B * H, 0.0);
    for (std::size_t e = 0; e < B * H; ++e) {
      const double dht = dh[e] + dOut[base + e];
      const double u = f.u[base + e], c = f.c[base + e];
      const double uEff = gruAttended(s, att, t, e / H, u);
      const double dUEff = dht * (hPrev[e] - c); // dL/du' with u' the gate the update uses
      const double keep = att.empty() ? 1.0 : 1 - att[(e / H) * T + t];
      if (!att.empty())
        g.datt[(e / H) * T + t] -= dUEff * u;
      du[e] = dUEff * keep * u * (1 - u) * gruStepMask(lengths, t, e / H);
      dcPre[e] = dht * (1 - uEff) * (1 - c * c) * gruStepMask(lengths, t, e / H);
      dhPrev[e] += dht * uEff;
    }
    // d(candidate's recurrent term) and the reset gate.
    for (std::size_t bi = 0; bi < B; ++bi)
      for (std::size_t j = 0; j < H; ++j) {
        const std::size_t e = bi * H + j;
        const double r = f.r[base + e];
        if (s.resetAfter) {
          dRec[e] = dcPre[e] * r; // gradient of h Wo[2] + b[2][1]
          dr[e] = dcPre[e] * f.rec[base + e] * r * (1 - r);
        } else {
          double drh = 0; // gradient of (r∘h) at element j
          for (std::size_t k = 0; k < H; ++k)
            drh += dcPre[bi * H + k] * Wo[(2 * H + j) * H + k];
          dRec[e] = drh;
          dr[e] = drh * hPrev[e] * r * (1 - r);
          dhPrev[e] += drh * r;
        }
      }
    for (std::size_t bi = 0; bi < B; ++bi)
      for (std::size_t j = 0; j < H; ++j) {
        const std::size_t e = bi * H + j;
        const double dPre[3] = {dr[e], du[e], dcPre[e]};
        for (std::size_t unit = 0; unit < 3; ++unit) {
          dbAt(unit, j, false) += dPre[unit];
          for (std::size_t k = 0; k < I; ++k) {
            g.dWi[(unit * I + k) * H + j] += x[(t * B + bi) * I + k] * dPre[unit];
            g.dx[(t * B + bi) * I + k] += Wi[(unit * I + k) * H + j] * dPre[unit];
          }
        }
        // Recurrent weights: r and u see h_{t-1}; the candidate sees r∘h (reset before) or h
        // (resetAfter, with gradient dRec).
        const double dRecPre[3] = {dr[e], du[e], s.resetAfter ? dRec[e] : dcPre[e]};
        for (std::size_t unit = 0; unit < 3; ++unit) {
          if (s.resetAfter)
            dbAt(unit, j, true) += dRecPre[unit];
          for (std::size_t k = 0; k < H; ++k) {
            const bool candidateBefore = unit == 2 && !s.resetAfter;
            const double in = candidateBefore ? f.rec[base + bi * H + k] : hPrev[bi * H + k];
            g.dWo[(unit * H + k) * H + j] += in * dRecPre[unit];
            if (!candidateBefore)
              dhPrev[bi * H + k] += Wo[(unit * H + k) * H + j] * dRecPre[unit];
          }
        }
      }
    for (std::size_t e = 0; e < B * H; ++e)
      if (gruStepMask(lengths, t, e / H) == 0) // the held state passes its gradient on
        dhPrev[e] = dh[e];
    dh = dhPrev;
  }
  g.dh0 = dh;
  return g;
}

} // namespace reference
