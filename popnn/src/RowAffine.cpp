#include "RowAffine.hpp"

namespace popnn::detail {

poplar::Tensor rowAffine(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                         const poplar::Tensor &a, const poplar::Tensor &b, const poplar::Tensor &k,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::size_t rowLength = x.dim(1);
  const poplar::Tensor out = graph.clone(x, {dc, "out"});
  const poplar::Tensor xf = x.flatten(), of = out.flatten();
  const bool withY = y.valid();
  const poplar::Tensor yf = withY ? y.flatten() : poplar::Tensor();
  poplar::ComputeSet cs = graph.addComputeSet({dc, withY ? "rowAxpby" : "rowAffine"});
  const auto mapping = graph.getTileMapping(out);
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &interval : mapping[tile]) {
      const std::size_t begin = interval.begin(), end = interval.end();
      if (begin == end)
        continue;
      const std::size_t r0 = begin / rowLength, r1 = (end - 1) / rowLength + 1;
      poplar::VertexRef v = withY ? graph.addVertex(cs, "popnn::RowAxpby<float>",
                                                    {{"x", xf.slice(begin, end)},
                                                     {"y", yf.slice(begin, end)},
                                                     {"out", of.slice(begin, end)},
                                                     {"a", a.slice(r0, r1)},
                                                     {"b", b.slice(r0, r1)},
                                                     {"k", k.slice(r0, r1)}})
                                  : graph.addVertex(cs, "popnn::RowAffine<float>",
                                                    {{"x", xf.slice(begin, end)},
                                                     {"out", of.slice(begin, end)},
                                                     {"a", a.slice(r0, r1)},
                                                     {"k", k.slice(r0, r1)}});
      graph.setInitialValue(v["rowLength"], static_cast<unsigned>(rowLength));
      graph.setInitialValue(v["offset"], static_cast<unsigned>(begin - r0 * rowLength));
      graph.setTileMapping(v, tile);
    }
  prog.add(poplar::program::Execute(cs, {dc, "rowAffine"}));
  return out;
}

} // namespace popnn::detail
