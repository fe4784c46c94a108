// Golden reference for popnn/CTCInference.hpp: CTC decoding of one batch entry, by brute force
// over every path and by prefix beam search.
//
// Semantics:
//  - logProbs is [T][C]; only the first dataLength timesteps count; a path (one class per
//    timestep) collapses to a label sequence by merging repeats and dropping blanks;
//  - P(sequence) = Σ over the paths collapsing to it of Π exp(logProbs[t][path_t]);
//  - bruteForceDecode: every sequence with P > 0, sorted by P descending (ties: shorter first,
//    then lexicographic) — the exact answer;
//  - beamSearchDecode: prefix beam search keeping, per beam, log P(prefix, ending in blank) (pb)
//    and log P(prefix, ending in a non-blank) (pnb). At each timestep every live beam (P > 0),
//    in beam order, yields first itself (pb' = (pb + pnb)·y_blank, pnb' = pnb·y_last) and then,
//    for each non-blank class s in order, itself extended by s (pnb' = pb·y_s, plus pnb·y_s when
//    s differs from its last label). A candidate whose sequence equals an earlier candidate's is
//    merged into it (probabilities added). The beamwidth most probable candidates (stable sort
//    on logAdd(pb, pnb), descending) become the beams. With a beam wide enough to keep every
//    prefix, beam search is exact and agrees with bruteForceDecode.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <vector>

#include "CTCLoss.hpp" // logAdd

namespace reference {

struct DecodedSequence {
  std::vector<unsigned> labels;
  double logProb = 0;
};

inline std::vector<DecodedSequence> bruteForceDecode(const std::vector<double> &logProbs,
                                                     std::size_t C, std::size_t dataLength,
                                                     unsigned blank) {
  std::map<std::vector<unsigned>, double> total;
  std::size_t count = 1;
  for (std::size_t t = 0; t < dataLength; ++t)
    count *= C;
  std::vector<unsigned> path(dataLength);
  for (std::size_t n = 0; n < count; ++n) {
    std::size_t rem = n;
    double lp = 0;
    for (std::size_t t = 0; t < dataLength; ++t) {
      path[t] = static_cast<unsigned>(rem % C);
      rem /= C;
      lp += logProbs[t * C + path[t]];
    }
    std::vector<unsigned> seq;
    for (std::size_t t = 0; t < dataLength; ++t)
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1]))
        seq.push_back(path[t]);
    auto it = total.find(seq);
    if (it == total.end())
      total[seq] = lp;
    else
      it->second = logAdd(it->second, lp);
  }
  std::vector<DecodedSequence> out;
  for (const auto &[seq, lp] : total)
    out.push_back({seq, lp});
  std::stable_sort(out.begin(), out.end(), [](const DecodedSequence &a, const DecodedSequence &b) {
    if (a.logProb != b.logProb)
      return a.logProb > b.logProb;
    if (a.labels.size() != b.labels.size())
      return a.labels.size() < b.labels.size();
    return a.labels < b.labels;
  });
  return out;
}

/// The beams after the last timestep, most probable first (at most beamWidth, live ones only).
inline std::vector<DecodedSequence> beamSearchDecode(const std::vector<double> &logProbs,
                                                     std::size_t C, std::size_t dataLength,
                                                     unsigned blank, std::size_t beamWidth) {
  const double ninf = -std::numeric_limits<double>::infinity();
  struct Beam {
    std::vector<unsigned> seq;
    double pb, pnb;
  };
  std::vector<Beam> beams{{{}, 0.0, ninf}};
  for (std::size_t t = 0; t < dataLength; ++t) {
    auto y = [&](unsigned k) { return logProbs[t * C + k]; };
    std::vector<Beam> cands;
    auto add = [&](Beam c) {
      for (auto &e : cands)
        if (e.seq == c.seq) {
          e.pb = logAdd(e.pb, c.pb);
          e.pnb = logAdd(e.pnb, c.pnb);
          return;
        }
      cands.push_back(std::move(c));
    };
    for (const auto &b : beams) {
      if (b.pb == ninf && b.pnb == ninf)
        continue;
      Beam copy{b.seq, logAdd(b.pb, b.pnb) + y(blank), ninf};
      if (!b.seq.empty())
        copy.pnb = b.pnb + y(b.seq.back());
      add(copy);
      for (unsigned s = 0; s < C; ++s) {
        if (s == blank)
          continue;
        Beam ext{b.seq, ninf, b.pb + y(s)};
        ext.seq.push_back(s);
        if (b.seq.empty() || b.seq.back() != s)
          ext.pnb = logAdd(ext.pnb, b.pnb + y(s));
        add(ext);
      }
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Beam &a, const Beam &b) {
      return logAdd(a.pb, a.pnb) > logAdd(b.pb, b.pnb);
    });
    if (cands.size() > beamWidth)
      cands.resize(beamWidth);
    beams = cands;
  }
  std::vector<DecodedSequence> out;
  for (const auto &b : beams)
    if (b.pb != ninf || b.pnb != ninf)
      out.push_back({b.seq, logAdd(b.pb, b.pnb)});
  return out;
}

} // namespace reference
