// popnn::NonLinearityRegions<T> / NonLinearityGradRegions<T>: the element-wise non-linearities
// and their input gradients over one tile's regions, for the forms of popnn::nonLinearityInPlace
// and nonLinearityInputGradient that add work to a caller's compute set (the Sequence forms use
// popops' fused maps). `type` is popnn::NonLinearityType's value; arithmetic in float.
#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "popnn/PopnnCodelets.hpp"

namespace tessera::codelets::popnn {
namespace {

// popnn::NonLinearityType's enumerators, in declaration order.
enum Type : unsigned { kSigmoid, kHardSigmoid, kRelu, kTanh, kGelu, kGeluErf, kSwish };

constexpr float kGeluAlpha = 0.7978845608f, kGeluBeta = 0.044715f;
constexpr float kInvSqrt2 = 0.70710678118f, kInvSqrt2Pi = 0.39894228040f;

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

inline float forward(unsigned type, float x) {
  switch (type) {
  case kSigmoid:
    return sigmoid(x);
  case kHardSigmoid:
    return std::min(1.0f, std::max(0.0f, 0.2f * x + 0.5f));
  case kRelu:
    return std::max(0.0f, x);
  case kTanh:
    return std::tanh(x);
  case kGelu:
    return x * 0.5f * (1.0f + std::tanh(x * kGeluAlpha * (1.0f + kGeluBeta * x * x)));
  case kGeluErf:
    return x * 0.5f * (1.0f + std::erf(x * kInvSqrt2));
  case kSwish:
    return x * sigmoid(x);
  }
  return x;
}

/// d(input) from `act` (the output for sigmoid, hard sigmoid, relu and tanh; the input for the
/// GELUs and swish) and the output gradient g.
inline float gradient(unsigned type, float act, float g) {
  switch (type) {
  case kSigmoid:
    return g * act * (1.0f - act);
  case kHardSigmoid:
    return act > 0.0f && act < 1.0f ? g * 0.2f : 0.0f;
  case kRelu:
    return act > 0.0f ? g : 0.0f;
  case kTanh:
    return g * (1.0f - act * act);
  case kGelu: {
    const float t = std::tanh(act * kGeluAlpha * (1.0f + kGeluBeta * act * act));
    const float dInner = kGeluAlpha * (1.0f + 3.0f * kGeluBeta * act * act);
    return g * (0.5f * (1.0f + t) + 0.5f * act * (1.0f - t * t) * dInner);
  }
  case kGeluErf:
    return g * (0.5f * (1.0f + std::erf(act * kInvSqrt2)) +
                act * kInvSqrt2Pi * std::exp(-0.5f * act * act));
  case kSwish: {
    const float s = sigmoid(act);
    return g * s * (1.0f + act * (1.0f - s));
  }
  }
  return g;
}

template <class T> class NonLinearityRegions : public poplar::Vertex {
public:
  poplar::Vector<poplar::InOut<poplar::Vector<T>>> data;
  unsigned type;

  bool compute() {
    for (std::size_t r = 0; r < data.size(); ++r)
      for (auto &x : data[r])
        x = T(forward(type, static_cast<float>(x)));
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (std::size_t r = 0; r < data.size(); ++r)
      n += data[r].size();
    return 20 + 4 * data.size() + n * 8;
  }
};

template <class T> class NonLinearityGradRegions : public poplar::Vertex {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> act, outGradient;
  poplar::Vector<poplar::Output<poplar::Vector<T>>> inGradient;
  unsigned type;

  bool compute() {
    for (std::size_t r = 0; r < inGradient.size(); ++r)
      for (std::size_t i = 0; i < inGradient[r].size(); ++i)
        inGradient[r][i] = T(gradient(type, static_cast<float>(act[r][i]),
                                      static_cast<float>(outGradient[r][i])));
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (std::size_t r = 0; r < inGradient.size(); ++r)
      n += inGradient[r].size();
    return 20 + 4 * inGradient.size() + n * 10;
  }
};

template <class T> void registerNonLinearity(const char *forwardName, const char *gradName) {
  using F = NonLinearityRegions<T>;
  tessera::VertexTypeBuilder<F>(forwardName).field("data", &F::data).field("type", &F::type).add();
  using G = NonLinearityGradRegions<T>;
  tessera::VertexTypeBuilder<G>(gradName)
      .field("act", &G::act)
      .field("outGradient", &G::outGradient)
      .field("inGradient", &G::inGradient)
      .field("type", &G::type)
      .add();
}

} // namespace

void registerNonLinearityVertices() {
  registerNonLinearity<float>("popnn::NonLinearityRegions<float>",
                              "popnn::NonLinearityGradRegions<float>");
  registerNonLinearity<poplar::half>("popnn::NonLinearityRegions<half>",
                                     "popnn::NonLinearityGradRegions<half>");
}

} // namespace tessera::codelets::popnn
