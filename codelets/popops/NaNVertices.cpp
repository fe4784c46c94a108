// popops::HasNaN<T, alsoInf>: out = whether any element of the regions `in` is a NaN (or, with
// alsoInf, a NaN or an infinity). One vertex covers a batch of one tile's regions.
#include <cmath>
#include <string>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

template <class T, bool AlsoInf> class HasNaN : public poplar::Vertex {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> in;
  poplar::Output<bool> out;

  bool compute() {
    bool found = false;
    for (std::size_t r = 0; r < in.size(); ++r) {
      const auto &region = in[r];
      for (std::size_t i = 0; i < region.size(); ++i) {
        const float x = static_cast<float>(region[i]);
        // !isfinite catches both NaN and ±inf; the NaN-only form tests x != x.
        found |= AlsoInf ? !std::isfinite(x) : std::isnan(x);
      }
    }
    *out = found;
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t elements = 0;
    for (std::size_t r = 0; r < in.size(); ++r)
      elements += in[r].size();
    return 10 + 4 * in.size() + elements;
  }
};

template <class T, bool AlsoInf> void registerHasNaN(const std::string &typeName) {
  using V = HasNaN<T, AlsoInf>;
  tessera::VertexTypeBuilder<V>("popops::HasNaN<" + typeName + "," + (AlsoInf ? "true" : "false") +
                                ">")
      .field("in", &V::in)
      .field("out", &V::out)
      .add();
}

} // namespace

void registerNaNVertices() {
  registerHasNaN<float, false>("float");
  registerHasNaN<float, true>("float");
  registerHasNaN<poplar::half, false>("half");
  registerHasNaN<poplar::half, true>("half");
}

} // namespace tessera::codelets::popops
