// Golden reference for popops::splineBasis (popops/SplineBasis.hpp): the B-spline basis of
// SplineCNN as PyTorch-Spline-Conv defines it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace reference {

/// Piece k (0 … degree) of the uniform B-spline of `degree` (1, 2 or 3) at v in [0, 1): the
/// weight of the k-th of the degree + 1 kernel points around a coordinate.
///   degree 1:  1 − v,  v
///   degree 2:  (1 − v)²/2,  −v² + v + 1/2,  v²/2
///   degree 3:  (1 − v)³/6,  (3v³ − 6v² + 4)/6,  (−3v³ + 3v² + 3v + 1)/6,  v³/6
inline double splineBasisPiece(unsigned degree, double v, unsigned k) {
  if (degree == 1)
    return k == 0 ? 1 - v : v;
  if (degree == 2)
    return k == 0 ? 0.5 * (1 - v) * (1 - v) : k == 1 ? -v * v + v + 0.5 : 0.5 * v * v;
  if (k == 0)
    return (1 - v) * (1 - v) * (1 - v) / 6;
  if (k == 1)
    return (3 * v * v * v - 6 * v * v + 4) / 6;
  if (k == 2)
    return (-3 * v * v * v + 3 * v * v + 3 * v + 1) / 6;
  return v * v * v / 6;
}

struct SplineBasisResult {
  std::vector<double> basis;    ///< [numEdges][numSplines]
  std::vector<int> weightIndex; ///< [numEdges][numSplines]
};

/// pseudo is [numEdges][numDims]; kernelSize and isOpenSpline have numDims elements. For edge e
/// and spline s in [0, (degree+1)^numDims): s's base-(degree+1) digits k_d (dimension 0 the
/// least significant) pick the kernel point per dimension. With n_d = kernelSize[d] and
/// v_d = pseudo[e][d] · (n_d − degree if isOpenSpline[d] else n_d):
///   basis[e][s]       = Π_d piece_{k_d}(v_d − floor(v_d))
///   weightIndex[e][s] = Σ_d ((trunc(v_d) + k_d) mod n_d) · Π_{d' < d} n_{d'}
/// (mod as C's %, so a closed spline wraps past its last point to its first; a non-positive
/// n_d contributes digit 0 and stride 1 — Tessera's choice, PyTorch would divide by zero).
inline SplineBasisResult splineBasis(const std::vector<double> &pseudo, std::size_t numEdges,
                                     const std::vector<int> &kernelSize,
                                     const std::vector<unsigned char> &isOpenSpline,
                                     unsigned degree) {
  const std::size_t numDims = kernelSize.size();
  std::size_t numSplines = 1;
  for (std::size_t d = 0; d < numDims; ++d)
    numSplines *= degree + 1;
  SplineBasisResult r;
  r.basis.assign(numEdges * numSplines, 0.0);
  r.weightIndex.assign(numEdges * numSplines, 0);
  for (std::size_t e = 0; e < numEdges; ++e)
    for (std::size_t s = 0; s < numSplines; ++s) {
      std::size_t rest = s;
      double product = 1;
      std::int64_t index = 0, stride = 1;
      for (std::size_t d = 0; d < numDims; ++d) {
        const unsigned k = static_cast<unsigned>(rest % (degree + 1));
        rest /= degree + 1;
        const int n = kernelSize[d];
        const double v = pseudo[e * numDims + d] * (isOpenSpline[d] ? n - int(degree) : n);
        if (n > 0) {
          index += ((static_cast<std::int64_t>(v) + k) % n) * stride;
          stride *= n;
        }
        product *= splineBasisPiece(degree, v - std::floor(v), k);
      }
      r.basis[e * numSplines + s] = product;
      r.weightIndex[e * numSplines + s] = static_cast<int>(index);
    }
  return r;
}

} // namespace reference
