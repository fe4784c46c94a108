// popops::CheckAccuracyWhenCast<float,half>: output = whether the float `input` survives a cast
// to half within the relative error `tolerance` — |input| no larger than the largest half and
// |float(half(input)) − input| < tolerance · |input|, evaluated in float as the IPU does (so 0,
// NaN and values that overflow or flush to zero give false).
#include <cmath>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

class CheckAccuracyWhenCastFloatToHalf : public poplar::Vertex {
public:
  poplar::Input<float> input;
  poplar::Output<bool> output;
  float tolerance;

  bool compute() {
    constexpr float kLargestHalf = 65504.0f;
    const float x = *input;
    const float magnitude = std::fabs(x);
    if (!(magnitude <= kLargestHalf)) { // also NaN
      *output = false;
      return true;
    }
    const float back = static_cast<float>(poplar::half(x));
    *output = magnitude * tolerance > std::fabs(back - x);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30; }
};

} // namespace

void registerCastVertices() {
  using V = CheckAccuracyWhenCastFloatToHalf;
  tessera::VertexTypeBuilder<V>("popops::CheckAccuracyWhenCast<float,half>")
      .field("input", &V::input)
      .field("output", &V::output)
      .field("tolerance", &V::tolerance)
      .add();
}

} // namespace tessera::codelets::popops
