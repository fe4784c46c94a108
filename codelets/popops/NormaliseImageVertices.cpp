// popops::NormaliseImage<InT, OutT>: pixels of 3 channels in, 4 out:
// out[p][c] = (in[p][c] * inScale - offsets[c]) * scales[c] for c < 3, out[p][3] = 0.
// Pixels are split between the workers; arithmetic in float, rounded once to OutT.
#include <string>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

template <class InT, class OutT> class NormaliseImage : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<InT>> in;
  poplar::Output<poplar::Vector<OutT>> out;
  poplar::Input<poplar::Vector<OutT>> offsets;
  poplar::Input<poplar::Vector<OutT>> scales;
  float inScale;

  bool compute(unsigned workerId) {
    const std::size_t pixels = in.size() / 3, workers = numWorkers();
    const float offset[3] = {float(offsets[0]), float(offsets[1]), float(offsets[2])};
    const float scale[3] = {float(scales[0]), float(scales[1]), float(scales[2])};
    for (std::size_t p = pixels * workerId / workers; p < pixels * (workerId + 1) / workers; ++p) {
      for (std::size_t c = 0; c < 3; ++c)
        out[4 * p + c] = OutT((float(in[3 * p + c]) * inScale - offset[c]) * scale[c]);
      out[4 * p + 3] = OutT(0.0f);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 2 * out.size(); }
};

template <class InT, class OutT> void registerNormalise(const std::string &name) {
  using V = NormaliseImage<InT, OutT>;
  tessera::VertexTypeBuilder<V>(name)
      .field("in", &V::in)
      .field("out", &V::out)
      .field("offsets", &V::offsets)
      .field("scales", &V::scales)
      .field("inScale", &V::inScale)
      .add();
}

} // namespace

void registerNormaliseImageVertices() {
  registerNormalise<float, float>("popops::NormaliseImage<float,float>");
  registerNormalise<poplar::half, poplar::half>("popops::NormaliseImage<half,half>");
  registerNormalise<unsigned char, poplar::half>("popops::NormaliseImage<unsigned char,half>");
}

} // namespace tessera::codelets::popops
