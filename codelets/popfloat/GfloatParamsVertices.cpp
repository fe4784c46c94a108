// The vertices that fill a gfloat cast's params tensor ({man, exp, bias, flags}) from the packed
// parameter word, given as a constant or read from a one-element tensor.
#include <poplar/Vertex.hpp>

#include "popfloat/PopfloatCodelets.hpp"
#include "popfloat/kernels/GfloatArithmetic.hpp"

namespace tessera::codelets::popfloat {
namespace {

class CastToGfloatParams : public poplar::Vertex {
public:
  poplar::Output<poplar::Vector<int>> param;
  unsigned gfPacked;

  void compute() { paramsFromPackedWord(gfPacked, &param[0]); }
  std::uint64_t cycleEstimate() const { return 20; }
};

template <class T> class CastToGfloatParamsFromTensor : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> gfPacked;
  poplar::Output<poplar::Vector<int>> param;

  void compute() { paramsFromPackedWord(static_cast<unsigned>(gfPacked[0]), &param[0]); }
  std::uint64_t cycleEstimate() const { return 20; }
};

template <class T> void registerFromTensor(const char *name) {
  tessera::VertexTypeBuilder<CastToGfloatParamsFromTensor<T>>(name)
      .field("gfPacked", &CastToGfloatParamsFromTensor<T>::gfPacked)
      .field("param", &CastToGfloatParamsFromTensor<T>::param)
      .add();
}

} // namespace

void registerGfloatParamsVertices() {
  tessera::VertexTypeBuilder<CastToGfloatParams>("popfloat::experimental::CastToGfloatParams")
      .field("param", &CastToGfloatParams::param)
      .field("gfPacked", &CastToGfloatParams::gfPacked)
      .add();
  registerFromTensor<int>("popfloat::experimental::CastToGfloatParamsFromTensor<int>");
  registerFromTensor<unsigned>(
      "popfloat::experimental::CastToGfloatParamsFromTensor<unsigned int>");
}

} // namespace tessera::codelets::popfloat
