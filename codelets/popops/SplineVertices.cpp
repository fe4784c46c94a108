// Spline convolution vertices (SplineCNN, as PyTorch-Spline-Conv defines the operation):
//   popops::SplineBasis<T,degree>  basis and weight index of each (edge, spline) in one run of
//                                  the flattened numEdges x numSplines outputs
//   popops::SplineWeighting<T>     each (edge, output channel) in one run of the flattened
//                                  numEdges x numOutputChannels output
// `offset` is where the run starts within the first edge the vertex's row inputs hold. Both
// compute in float whatever T is, in a fixed order, so every layout gives the same bits.
#include <cmath>
#include <cstdint>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

/// The piece `k` (0 … degree) of the uniform B-spline of degree `Degree` at v in [0, 1): the
/// weight of the k-th of the degree + 1 kernel points around the coordinate.
template <unsigned Degree> float basisPiece(float v, unsigned k) {
  if constexpr (Degree == 1) {
    return k == 0 ? 1.0f - v : v;
  } else if constexpr (Degree == 2) {
    if (k == 0)
      return 0.5f * (1.0f - v) * (1.0f - v);
    if (k == 1)
      return -v * v + v + 0.5f;
    return 0.5f * v * v;
  } else {
    if (k == 0)
      return (1.0f - v) * (1.0f - v) * (1.0f - v) / 6.0f;
    if (k == 1)
      return (3.0f * v * v * v - 6.0f * v * v + 4.0f) / 6.0f;
    if (k == 2)
      return (-3.0f * v * v * v + 3.0f * v * v + 3.0f * v + 1.0f) / 6.0f;
    return v * v * v / 6.0f;
  }
}

template <class T, unsigned Degree> class SplineBasis : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> pseudo; ///< The rows of the edges the run covers.
  poplar::Input<poplar::Vector<int>> kernelSize;
  poplar::Input<poplar::Vector<unsigned char>> isOpenSpline;
  poplar::Output<poplar::Vector<T>> basis;
  poplar::Output<poplar::Vector<int>> weightIndex;
  unsigned numDims;
  unsigned numSplines;
  unsigned offset;

  bool compute() {
    for (std::size_t i = 0; i < basis.size(); ++i) {
      const std::size_t at = offset + i;
      const std::size_t edge = at / numSplines;
      unsigned s = static_cast<unsigned>(at % numSplines);
      float product = 1.0f;
      std::int64_t index = 0, stride = 1;
      for (unsigned d = 0; d < numDims; ++d) {
        const unsigned k = s % (Degree + 1);
        s /= Degree + 1;
        const int n = kernelSize[d];
        const int points = isOpenSpline[d] != 0 ? n - static_cast<int>(Degree) : n;
        const float v = static_cast<float>(pseudo[edge * numDims + d]) * static_cast<float>(points);
        if (n > 0) {
          const std::int64_t digit = (static_cast<std::int64_t>(v) + k) % n;
          index += digit * stride;
          stride *= n;
        }
        product *= basisPiece<Degree>(v - std::floor(v), k);
      }
      basis[i] = T(product);
      weightIndex[i] = static_cast<int>(index);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 20 + basis.size() * (10 + 12 * static_cast<std::uint64_t>(numDims));
  }
};

template <class T> class SplineWeighting : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> input;  ///< [edges][numInCh] of the edges the run covers.
  poplar::Input<poplar::Vector<T>> weight; ///< [kernel points][numInCh][numOutCh], whole.
  poplar::Input<poplar::Vector<T>> basis;  ///< [edges][numSplines]
  poplar::Input<poplar::Vector<int>> weightIndex;
  poplar::Output<poplar::Vector<T>> output;
  unsigned numInCh;
  unsigned numOutCh;
  unsigned numSplines;
  unsigned offset;

  bool compute() {
    const std::size_t perPoint = std::size_t(numInCh) * numOutCh;
    const std::size_t numPoints = perPoint == 0 ? 0 : weight.size() / perPoint;
    for (std::size_t i = 0; i < output.size(); ++i) {
      const std::size_t at = offset + i;
      const std::size_t edge = at / numOutCh, out = at % numOutCh;
      float sum = 0.0f;
      for (unsigned s = 0; s < numSplines; ++s) {
        const int point = weightIndex[edge * numSplines + s];
        if (point < 0 || static_cast<std::size_t>(point) >= numPoints)
          continue; // an index outside the weights contributes nothing
        const float b = static_cast<float>(basis[edge * numSplines + s]);
        const std::size_t w0 = static_cast<std::size_t>(point) * perPoint + out;
        float dot = 0.0f;
        for (unsigned c = 0; c < numInCh; ++c)
          dot += static_cast<float>(input[edge * numInCh + c]) *
                 static_cast<float>(weight[w0 + std::size_t(c) * numOutCh]);
        sum += b * dot;
      }
      output[i] = T(sum);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 20 + output.size() * (4 + std::uint64_t(numSplines) * (6 + 2 * std::uint64_t(numInCh)));
  }
};

template <class T, unsigned Degree> void registerBasis(const char *name) {
  using V = SplineBasis<T, Degree>;
  tessera::VertexTypeBuilder<V>(name)
      .field("pseudo", &V::pseudo)
      .field("kernelSize", &V::kernelSize)
      .field("isOpenSpline", &V::isOpenSpline)
      .field("basis", &V::basis)
      .field("weightIndex", &V::weightIndex)
      .field("numDims", &V::numDims)
      .field("numSplines", &V::numSplines)
      .field("offset", &V::offset)
      .add();
}

template <class T> void registerWeighting(const char *name) {
  using V = SplineWeighting<T>;
  tessera::VertexTypeBuilder<V>(name)
      .field("input", &V::input)
      .field("weight", &V::weight)
      .field("basis", &V::basis)
      .field("weightIndex", &V::weightIndex)
      .field("output", &V::output)
      .field("numInCh", &V::numInCh)
      .field("numOutCh", &V::numOutCh)
      .field("numSplines", &V::numSplines)
      .field("offset", &V::offset)
      .add();
}

} // namespace

void registerSplineVertices() {
  registerBasis<float, 1>("popops::SplineBasis<float,1>");
  registerBasis<float, 2>("popops::SplineBasis<float,2>");
  registerBasis<float, 3>("popops::SplineBasis<float,3>");
  registerBasis<poplar::half, 1>("popops::SplineBasis<half,1>");
  registerBasis<poplar::half, 2>("popops::SplineBasis<half,2>");
  registerBasis<poplar::half, 3>("popops::SplineBasis<half,3>");
  registerWeighting<float>("popops::SplineWeighting<float>");
  registerWeighting<poplar::half>("popops::SplineWeighting<half>");
}

} // namespace tessera::codelets::popops
