// popops::Transpose2D<T>: dst[m] = the transpose of the numSrcRows x numSrcColumns matrix
// src[m] (both row-major, flattened), for every matrix m of the list.
#include <string>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

template <class T> class Transpose2D : public poplar::Vertex {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> src;
  poplar::Vector<poplar::Output<poplar::Vector<T>>> dst;
  unsigned numSrcRows;
  unsigned numSrcColumns;

  bool compute() {
    for (std::size_t m = 0; m < src.size(); ++m) {
      const auto &in = src[m];
      auto &out = dst[m];
      for (std::size_t r = 0; r < numSrcRows; ++r)
        for (std::size_t c = 0; c < numSrcColumns; ++c)
          out[c * numSrcRows + r] = in[r * numSrcColumns + c];
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 20 + std::uint64_t(src.size()) * (8 + std::uint64_t(numSrcRows) * numSrcColumns);
  }
};

template <class T> void registerTranspose(const std::string &typeName) {
  using V = Transpose2D<T>;
  tessera::VertexTypeBuilder<V>("popops::Transpose2D<" + typeName + ">")
      .field("src", &V::src)
      .field("dst", &V::dst)
      .field("numSrcRows", &V::numSrcRows)
      .field("numSrcColumns", &V::numSrcColumns)
      .add();
}

} // namespace

void registerRearrangeVertices() {
  registerTranspose<poplar::half>("half");
  registerTranspose<float>("float");
  registerTranspose<unsigned short>("unsigned short");
  registerTranspose<short>("short");
  registerTranspose<unsigned>("unsigned int");
  registerTranspose<int>("int");
}

} // namespace tessera::codelets::popops
