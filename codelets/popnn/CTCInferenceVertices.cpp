// popnn::CTCBeamSearch<In, Out>: prefix beam search over one batch entry's log-probabilities, on
// the tile holding it.
//
// The beams live in a double-buffered workspace (label sequences, lengths, and the log
// probabilities of ending in a blank (pb) and in a non-blank (pnb)); each timestep writes the
// candidates (parent beam, appended class or none, their pb and pnb) into the candidate
// workspace, merging a candidate into an earlier one with the same label sequence, stable-sorts
// them by probability and keeps the beamWidth best as the next beams. Float arithmetic; dead
// beams (probability 0) are dropped rather than carried.
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

constexpr unsigned kNoClass = ~0u;


template <class In, class Out> class CTCBeamSearch : public poplar::Vertex {
public:
  poplar::Vector<poplar::Input<poplar::Vector<In>>> logProbs; ///< [maxTime] rows of [numClasses]
  poplar::Input<unsigned> dataLength;
  // Workspace.
  poplar::Output<poplar::Vector<unsigned>> beamLabels;   ///< [2][beamWidth][maxTime]
  poplar::Output<poplar::Vector<unsigned>> beamLengths;  ///< [2][beamWidth]
  poplar::Output<poplar::Vector<float>> beamProbs;       ///< [2][beamWidth][pb, pnb]
  poplar::Output<poplar::Vector<unsigned>> candidates;   ///< [beamWidth * numClasses][parent, class]
  poplar::Output<poplar::Vector<float>> candidateProbs;  ///< [beamWidth * numClasses][pb, pnb]
  poplar::Output<poplar::Vector<unsigned>> order;        ///< [beamWidth * numClasses]
  // Results.
  poplar::Output<poplar::Vector<Out>> labelProbs;        ///< [topPaths]
  poplar::Output<poplar::Vector<unsigned>> labelLengths; ///< [topPaths]
  poplar::Output<poplar::Vector<unsigned>> decodedLabels; ///< [topPaths][maxTime]
  unsigned blankClass;
  unsigned beamWidth;

  bool compute() {
    const std::size_t T = logProbs.size(), C = T ? logProbs[0].size() : 0;
    const std::size_t Tv = std::min<std::size_t>(*dataLength, T), bw = beamWidth;
    unsigned *labels[2] = {beamLabels.data(), beamLabels.data() + bw * T};
    unsigned *lengths[2] = {beamLengths.data(), beamLengths.data() + bw};
    float *probs[2] = {beamProbs.data(), beamProbs.data() + 2 * bw};
    unsigned *cand = candidates.data();
    float *candP = candidateProbs.data();
    // One beam to start: the empty sequence, ending in a blank with probability 1.
    std::size_t numBeams = 1, cur = 0;
    lengths[0][0] = 0;
    probs[0][0] = 0.0f;
    probs[0][1] = kLogZero;

    for (std::size_t t = 0; t < Tv; ++t) {
      auto y = [&](std::size_t k) { return static_cast<float>(logProbs[t][k]); };
      const unsigned *seqs = labels[cur];
      const unsigned *lens = lengths[cur];
      const float *p = probs[cur];
      auto lastOf = [&](std::size_t beam) {
        return lens[beam] ? seqs[beam * T + lens[beam] - 1] : kNoClass;
      };
      // Whether candidates a and b (parent, appended class or kNoClass) spell the same sequence.
      auto sameSequence = [&](std::size_t a, std::size_t b) {
        const unsigned pa = cand[2 * a], pb = cand[2 * b], xa = cand[2 * a + 1],
                       xb = cand[2 * b + 1];
        const std::size_t la = lens[pa] + (xa != kNoClass), lb = lens[pb] + (xb != kNoClass);
        if (la != lb)
          return false;
        auto at = [&](unsigned parent, unsigned extra, std::size_t i) {
          return i < lens[parent] ? seqs[parent * T + i] : extra;
        };
        for (std::size_t i = la; i-- > 0;)
          if (at(pa, xa, i) != at(pb, xb, i))
            return false;
        return true;
      };
      std::size_t n = 0;
      auto add = [&](unsigned parent, unsigned extra, float pbValue, float pnbValue) {
        cand[2 * n] = parent;
        cand[2 * n + 1] = extra;
        for (std::size_t e = 0; e < n; ++e)
          if (sameSequence(e, n)) {
            candP[2 * e] = logAdd(candP[2 * e], pbValue);
            candP[2 * e + 1] = logAdd(candP[2 * e + 1], pnbValue);
            return;
          }
        candP[2 * n] = pbValue;
        candP[2 * n + 1] = pnbValue;
        ++n;
      };
      for (std::size_t b = 0; b < numBeams; ++b) {
        const float pb = p[2 * b], pnb = p[2 * b + 1];
        const unsigned last = lastOf(b);
        const float keepBlank = logAdd(pb, pnb) + y(blankClass);
        const float keepRepeat = last == kNoClass ? kLogZero : pnb + y(last);
        add(static_cast<unsigned>(b), kNoClass, keepBlank, keepRepeat);
        for (std::size_t s = 0; s < C; ++s) {
          if (s == blankClass)
            continue;
          float extend = pb + y(s);
          if (last != s)
            extend = logAdd(extend, pnb + y(s));
          add(static_cast<unsigned>(b), static_cast<unsigned>(s), kLogZero, extend);
        }
      }
      unsigned *ord = order.data();
      for (std::size_t i = 0; i < n; ++i)
        ord[i] = static_cast<unsigned>(i);
      std::stable_sort(ord, ord + n, [&](unsigned a, unsigned b) {
        return logAdd(candP[2 * a], candP[2 * a + 1]) > logAdd(candP[2 * b], candP[2 * b + 1]);
      });
      const std::size_t next = 1 - cur;
      std::size_t kept = 0;
      for (std::size_t i = 0; i < n && kept < bw; ++i) {
        const unsigned c = ord[i];
        if (candP[2 * c] == kLogZero && candP[2 * c + 1] == kLogZero)
          break; // the rest are dead too
        const unsigned parent = cand[2 * c], extra = cand[2 * c + 1];
        unsigned *dst = labels[next] + kept * T;
        std::copy(seqs + parent * T, seqs + parent * T + lens[parent], dst);
        lengths[next][kept] = lens[parent];
        if (extra != kNoClass)
          dst[lengths[next][kept]++] = extra;
        probs[next][2 * kept] = candP[2 * c];
        probs[next][2 * kept + 1] = candP[2 * c + 1];
        ++kept;
      }
      numBeams = kept;
      cur = next;
    }

    const std::size_t topPaths = labelProbs.size();
    std::fill(decodedLabels.begin(), decodedLabels.end(), blankClass);
    for (std::size_t path = 0; path < topPaths; ++path) {
      if (path >= numBeams) {
        labelProbs[path] = Out(kLogZero);
        labelLengths[path] = 0;
        continue;
      }
      labelProbs[path] = Out(logAdd(probs[cur][2 * path], probs[cur][2 * path + 1]));
      labelLengths[path] = lengths[cur][path];
      std::copy(labels[cur] + path * T, labels[cur] + path * T + lengths[cur][path],
                decodedLabels.data() + path * T);
    }
    return true;
  }

  std::uint64_t cycleEstimate() const {
    const std::uint64_t T = logProbs.size(), C = T ? logProbs[0].size() : 0;
    const std::uint64_t n = static_cast<std::uint64_t>(beamWidth) * C;
    // Per timestep: candidates with their merge checks (~bw per candidate), a sort, the copy.
    return 50 + T * (n * (40 + 4 * beamWidth) + n * 8 + beamWidth * T);
  }
};

template <class In, class Out> void registerBeamSearch(const char *name) {
  using V = CTCBeamSearch<In, Out>;
  tessera::VertexTypeBuilder<V>(name)
      .field("logProbs", &V::logProbs)
      .field("dataLength", &V::dataLength)
      .field("beamLabels", &V::beamLabels)
      .field("beamLengths", &V::beamLengths)
      .field("beamProbs", &V::beamProbs)
      .field("candidates", &V::candidates)
      .field("candidateProbs", &V::candidateProbs)
      .field("order", &V::order)
      .field("labelProbs", &V::labelProbs)
      .field("labelLengths", &V::labelLengths)
      .field("decodedLabels", &V::decodedLabels)
      .field("blankClass", &V::blankClass)
      .field("beamWidth", &V::beamWidth)
      .add();
}

} // namespace

void registerCTCInferenceVertices() {
  registerBeamSearch<float, float>("popnn::CTCBeamSearch<float,float>");
  registerBeamSearch<poplar::half, poplar::half>("popnn::CTCBeamSearch<half,half>");
}

} // namespace tessera::codelets::popnn
