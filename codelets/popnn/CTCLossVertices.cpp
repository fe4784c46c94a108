// popnn::CTCLoss<In, Out>: the CTC loss and gradient of one batch entry, on the tile holding it.
//
// Forward (alpha) recursion over every valid timestep into the `alpha` workspace
// ([maxTime][2 * maxLabelLength + 1], log space), loss = -log P from its last row; then the
// backward (beta) recursion walks time downwards keeping two rows in `beta`, and at each timestep
// gathers, per class, log Σ alpha·beta / y into `classSums`, from which that timestep's gradient
// row is written. All arithmetic in float; log(exp(a) + exp(b)) as max + log1p(exp(-|a - b|)).
#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "popnn/LogSpace.hpp"
#include "popnn/PopnnCodelets.hpp"

namespace tessera::codelets::popnn {
namespace {

template <class In, class Out> class CTCLoss : public poplar::Vertex {
public:
  /// [maxTime] rows of [numClasses] log-probabilities.
  poplar::Vector<poplar::Input<poplar::Vector<In>>> logProbs;
  poplar::Input<poplar::Vector<unsigned>> label; ///< [maxLabelLength]
  poplar::Input<unsigned> dataLength;
  poplar::Input<unsigned> labelLength;
  poplar::Output<poplar::Vector<float>> alpha;     ///< [maxTime * (2 maxLabelLength + 1)]
  poplar::Output<poplar::Vector<float>> beta;      ///< [2 * (2 maxLabelLength + 1)]
  poplar::Output<poplar::Vector<float>> classSums; ///< [numClasses]
  poplar::Output<poplar::Vector<Out>> loss;        ///< [1]
  poplar::Vector<poplar::Output<poplar::Vector<Out>>> grad; ///< [maxTime] rows of [numClasses]
  unsigned blankClass;
  bool includeSoftmaxGradient;

  bool compute() {
    const std::size_t T = logProbs.size(), C = T ? logProbs[0].size() : 0;
    const std::size_t maxL = label.size();
    const std::size_t L = std::min<std::size_t>(*labelLength, maxL), S = 2 * L + 1,
                      stride = 2 * maxL + 1;
    const std::size_t Tv = std::min<std::size_t>(*dataLength, T);
    for (std::size_t t = 0; t < T; ++t)
      std::fill(grad[t].begin(), grad[t].end(), Out(0.0f));
    bool labelsValid = true;
    for (std::size_t i = 0; i < L; ++i)
      labelsValid = labelsValid && label[i] < C && label[i] != blankClass;
    auto ext = [&](std::size_t s) { return s % 2 == 0 ? blankClass : label[(s - 1) / 2]; };
    auto lp = [&](std::size_t t, std::size_t k) { return static_cast<float>(logProbs[t][k]); };
    if (Tv == 0 || !labelsValid || blankClass >= C) {
      // No timesteps: the empty label has probability 1, any other none.
      loss[0] = Out(Tv == 0 && L == 0 && labelsValid ? 0.0f
                                                     : std::numeric_limits<float>::infinity());
      return true;
    }
    float *a = alpha.data();
    std::fill(a, a + Tv * stride, kLogZero);
    a[0] = lp(0, blankClass);
    if (L > 0)
      a[1] = lp(0, ext(1));
    for (std::size_t t = 1; t < Tv; ++t) {
      const float *prev = a + (t - 1) * stride;
      float *cur = a + t * stride;
      for (std::size_t s = 0; s < S; ++s) {
        float v = prev[s];
        if (s >= 1)
          v = logAdd(v, prev[s - 1]);
        if (s >= 2 && ext(s) != blankClass && ext(s) != ext(s - 2))
          v = logAdd(v, prev[s - 2]);
        cur[s] = v == kLogZero ? kLogZero : v + lp(t, ext(s));
      }
    }
    const float *last = a + (Tv - 1) * stride;
    const float logP = S > 1 ? logAdd(last[S - 1], last[S - 2]) : last[S - 1];
    if (logP == kLogZero) { // too few timesteps for the label
      loss[0] = Out(std::numeric_limits<float>::infinity());
      return true;
    }
    loss[0] = Out(-logP);

    float *rows[2] = {beta.data(), beta.data() + stride};
    std::fill(beta.begin(), beta.end(), kLogZero);
    for (std::size_t t = Tv; t-- > 0;) {
      float *cur = rows[t % 2];
      const float *next = rows[(t + 1) % 2];
      if (t == Tv - 1) {
        std::fill(cur, cur + S, kLogZero);
        cur[S - 1] = lp(t, blankClass);
        if (S > 1)
          cur[S - 2] = lp(t, ext(S - 2));
      } else {
        for (std::size_t s = 0; s < S; ++s) {
          float v = next[s];
          if (s + 1 < S)
            v = logAdd(v, next[s + 1]);
          if (s + 2 < S && ext(s) != blankClass && ext(s) != ext(s + 2))
            v = logAdd(v, next[s + 2]);
          cur[s] = v == kLogZero ? kLogZero : v + lp(t, ext(s));
        }
      }
      // Per class: log Σ over the extended label's positions holding it of alpha·beta / y.
      std::fill(classSums.begin(), classSums.end(), kLogZero);
      const float *at = a + t * stride;
      for (std::size_t s = 0; s < S; ++s)
        if (at[s] != kLogZero && cur[s] != kLogZero)
          classSums[ext(s)] = logAdd(classSums[ext(s)], at[s] + cur[s] - lp(t, ext(s)));
      for (std::size_t k = 0; k < C; ++k) {
        const float occupancy = std::exp(classSums[k] - logP);
        const float softmax = includeSoftmaxGradient ? std::exp(lp(t, k)) : 0.0f;
        grad[t][k] = Out(softmax - occupancy);
      }
    }
    return true;
  }

  std::uint64_t cycleEstimate() const {
    const std::uint64_t T = logProbs.size(), C = T ? logProbs[0].size() : 0;
    const std::uint64_t S = 2 * label.size() + 1;
    // Two recursions of ~3 log-adds per (t, s) (each ~20 cycles: exp, log1p), the gather and
    // the gradient row (an exp or two per class).
    return 50 + T * (S * 2 * 60 + S * 20 + C * 40);
  }
};

template <class In, class Out> void registerCTCLoss(const char *name) {
  using V = CTCLoss<In, Out>;
  tessera::VertexTypeBuilder<V>(name)
      .field("logProbs", &V::logProbs)
      .field("label", &V::label)
      .field("dataLength", &V::dataLength)
      .field("labelLength", &V::labelLength)
      .field("alpha", &V::alpha)
      .field("beta", &V::beta)
      .field("classSums", &V::classSums)
      .field("loss", &V::loss)
      .field("grad", &V::grad)
      .field("blankClass", &V::blankClass)
      .field("includeSoftmaxGradient", &V::includeSoftmaxGradient)
      .add();
}

} // namespace

void registerCTCLossVertices() {
  registerCTCLoss<float, float>("popnn::CTCLoss<float,float>");
  registerCTCLoss<poplar::half, float>("popnn::CTCLoss<half,float>");
  registerCTCLoss<poplar::half, poplar::half>("popnn::CTCLoss<half,half>");
}

} // namespace tessera::codelets::popnn
