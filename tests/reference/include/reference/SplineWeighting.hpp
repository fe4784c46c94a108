// Golden reference for popops::splineWeighting (popops/SplineWeighting.hpp).
#pragma once

#include <cstddef>
#include <vector>

namespace reference {

/// input [numEdges][numInCh], weight [numPoints][numInCh][numOutCh], basis and weightIndex
/// [numEdges][numSplines]:
///   output[e][o] = Σ_s basis[e][s] · Σ_i input[e][i] · weight[weightIndex[e][s]][i][o]
/// An index outside [0, numPoints) contributes nothing (Tessera's choice; PyTorch would read out
/// of bounds).
inline std::vector<double> splineWeighting(const std::vector<double> &input,
                                           const std::vector<double> &weight,
                                           const std::vector<double> &basis,
                                           const std::vector<int> &weightIndex,
                                           std::size_t numEdges, std::size_t numInCh,
                                           std::size_t numOutCh, std::size_t numSplines) {
  const std::size_t perPoint = numInCh * numOutCh;
  const std::size_t numPoints = perPoint == 0 ? 0 : weight.size() / perPoint;
  std::vector<double> out(numEdges * numOutCh, 0.0);
  for (std::size_t e = 0; e < numEdges; ++e)
    for (std::size_t o = 0; o < numOutCh; ++o) {
      double sum = 0;
      for (std::size_t s = 0; s < numSplines; ++s) {
        const int p = weightIndex[e * numSplines + s];
        if (p < 0 || static_cast<std::size_t>(p) >= numPoints)
          continue;
        for (std::size_t i = 0; i < numInCh; ++i)
          sum += basis[e * numSplines + s] * input[e * numInCh + i] *
                 weight[(p * numInCh + i) * numOutCh + o];
      }
      out[e * numOutCh + o] = sum;
    }
  return out;
}

} // namespace reference
