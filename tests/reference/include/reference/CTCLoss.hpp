// Golden reference for popnn/CTCLoss.hpp: the connectionist temporal classification loss of one
// batch entry and its gradient, by the forward-backward (alpha-beta) recursions in log space.
//
// Semantics:
//  - logProbs is [T][C] (log-probabilities, one row per timestep); only the first dataLength
//    timesteps take part; the label is `label` (no blanks), extended to l' = blank, l1, blank,
//    l2, …, blank (2L + 1 symbols);
//  - alpha(t, s) = log Σ over prefixes of paths ending in l'_s at t (the current timestep's
//    probability included); beta(t, s) likewise over the suffixes starting at t; a path moves
//    from s to s, s + 1, or s + 2 when l'_{s+2} is not blank and differs from l'_s;
//  - loss = -log P with P = Σ over paths collapsing to the label; with dataLength 0 the loss is 0
//    for an empty label; an impossible alignment (too few timesteps) has loss +inf;
//  - gradient, timestep t < dataLength, class k: exp(logProbs[t][k]) - γ(t, k) with
//    γ(t, k) = Σ_{s: l'_s = k} exp(alpha + beta - logProbs[t][k] - log P): the gradient with
//    respect to the logits when logProbs = logSoftmax(logits) (includeSoftmaxGradient); without
//    the softmax term it is -γ(t, k), the gradient with respect to logProbs itself; timesteps
//    from dataLength on, and every timestep of an impossible alignment, have gradient 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace reference {

struct CtcLossResult {
  double loss = 0;
  std::vector<double> gradient; ///< [T][C]
};

/// log(exp(a) + exp(b)) without overflow; -inf is the log of 0.
inline double logAdd(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity())
    return b;
  if (b == -std::numeric_limits<double>::infinity())
    return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

inline CtcLossResult ctcLoss(const std::vector<double> &logProbs, std::size_t T, std::size_t C,
                             std::size_t dataLength, const std::vector<unsigned> &label,
                             unsigned blank, bool includeSoftmaxGradient = true) {
  const double ninf = -std::numeric_limits<double>::infinity();
  const std::size_t L = label.size(), S = 2 * L + 1, Tv = std::min(dataLength, T);
  auto ext = [&](std::size_t s) { return s % 2 == 0 ? blank : label[(s - 1) / 2]; };
  auto lp = [&](std::size_t t, std::size_t k) { return logProbs[t * C + k]; };
  CtcLossResult r;
  r.gradient.assign(T * C, 0.0);
  if (Tv == 0) {
    r.loss = L == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return r;
  }
  std::vector<double> alpha(Tv * S, ninf), beta(Tv * S, ninf);
  alpha[0] = lp(0, blank);
  if (L > 0)
    alpha[1] = lp(0, ext(1));
  for (std::size_t t = 1; t < Tv; ++t)
    for (std::size_t s = 0; s < S; ++s) {
      double a = alpha[(t - 1) * S + s];
      if (s >= 1)
        a = logAdd(a, alpha[(t - 1) * S + s - 1]);
      if (s >= 2 && ext(s) != blank && ext(s) != ext(s - 2))
        a = logAdd(a, alpha[(t - 1) * S + s - 2]);
      alpha[t * S + s] = a + lp(t, ext(s));
    }
  double logP = alpha[(Tv - 1) * S + S - 1];
  if (S > 1)
    logP = logAdd(logP, alpha[(Tv - 1) * S + S - 2]);
  r.loss = -logP;
  if (logP == ninf) {
    r.loss = std::numeric_limits<double>::infinity();
    return r;
  }
  beta[(Tv - 1) * S + S - 1] = lp(Tv - 1, blank);
  if (S > 1)
    beta[(Tv - 1) * S + S - 2] = lp(Tv - 1, ext(S - 2));
  for (std::size_t t = Tv - 1; t-- > 0;)
    for (std::size_t s = 0; s < S; ++s) {
      double b = beta[(t + 1) * S + s];
      if (s + 1 < S)
        b = logAdd(b, beta[(t + 1) * S + s + 1]);
      if (s + 2 < S && ext(s) != blank && ext(s) != ext(s + 2))
        b = logAdd(b, beta[(t + 1) * S + s + 2]);
      beta[t * S + s] = b + lp(t, ext(s));
    }
  for (std::size_t t = 0; t < Tv; ++t) {
    std::vector<double> lg(C, ninf);
    for (std::size_t s = 0; s < S; ++s)
      lg[ext(s)] = logAdd(lg[ext(s)], alpha[t * S + s] + beta[t * S + s] - lp(t, ext(s)));
    for (std::size_t k = 0; k < C; ++k)
      r.gradient[t * C + k] =
          (includeSoftmaxGradient ? std::exp(lp(t, k)) : 0.0) - std::exp(lg[k] - logP);
  }
  return r;
}

/// -log P by brute force: the sum over all C^T paths of the first dataLength timesteps that
/// collapse (merge repeats, drop blanks) to `label`. For checking ctcLoss on tiny problems.
inline double ctcLossBruteForce(const std::vector<double> &logProbs, std::size_t C,
                                std::size_t dataLength, const std::vector<unsigned> &label,
                                unsigned blank) {
  double logP = -std::numeric_limits<double>::infinity();
  std::vector<unsigned> path(dataLength, 0);
  std::size_t count = 1;
  for (std::size_t t = 0; t < dataLength; ++t)
    count *= C;
  for (std::size_t n = 0; n < count; ++n) {
    std::size_t rem = n;
    double lpPath = 0;
    for (std::size_t t = 0; t < dataLength; ++t) {
      path[t] = static_cast<unsigned>(rem % C);
      rem /= C;
      lpPath += logProbs[t * C + path[t]];
    }
    std::vector<unsigned> collapsed;
    for (std::size_t t = 0; t < dataLength; ++t)
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1]))
        collapsed.push_back(path[t]);
    if (collapsed == label)
      logP = logAdd(logP, lpPath);
  }
  return -logP;
}

} // namespace reference
