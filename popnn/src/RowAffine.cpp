#include "RowAffine.hpp"

#include <string>
#include <vector>

namespace popnn::detail {
namespace {

using Fields = std::vector<std::pair<std::string, poplar::Tensor>>;

/// One `vertexType` vertex per tile run of `layout` (a [rows][rowLength] tensor): the
/// perElement tensors (laid out like `layout`) sliced to the run, the perRow [rows] tensors to
/// the rows it touches, and where the run starts in its first row.
void addRowVertices(poplar::Graph &graph, poplar::ComputeSet cs, const char *vertexType,
                    const poplar::Tensor &layout, const Fields &perElement, const Fields &perRow,
                    float invN = 0.0f, bool withInvN = false) {
  const std::size_t rowLength = layout.dim(1);
  const auto mapping = graph.getTileMapping(layout);
  Fields flat;
  for (const auto &[name, t] : perElement)
    flat.push_back({name, t.flatten()});
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &interval : mapping[tile]) {
      const std::size_t begin = interval.begin(), end = interval.end();
      if (begin == end)
        continue;
      const std::size_t r0 = begin / rowLength, r1 = (end - 1) / rowLength + 1;
      std::vector<poplar::ConnectionDesc> connections;
      for (const auto &[name, t] : flat)
        connections.emplace_back(name, t.slice(begin, end));
      for (const auto &[name, t] : perRow)
        connections.emplace_back(name, t.slice(r0, r1));
      poplar::VertexRef v = graph.addVertex(cs, vertexType, connections);
      graph.setInitialValue(v["rowLength"], static_cast<unsigned>(rowLength));
      graph.setInitialValue(v["offset"], static_cast<unsigned>(begin - r0 * rowLength));
      if (withInvN)
        graph.setInitialValue(v["invN"], invN);
      graph.setTileMapping(v, tile);
    }
}

} // namespace

poplar::Tensor rowAffine(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                         const poplar::Tensor &a, const poplar::Tensor &b, const poplar::Tensor &k,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const poplar::Tensor out = graph.clone(x, {dc, "out"});
  const bool withY = y.valid();
  poplar::ComputeSet cs = graph.addComputeSet({dc, withY ? "rowAxpby" : "rowAffine"});
  if (withY)
    addRowVertices(graph, cs, "popnn::RowAxpby<float>", out, {{"x", x}, {"y", y}, {"out", out}},
                   {{"a", a}, {"b", b}, {"k", k}});
  else
    addRowVertices(graph, cs, "popnn::RowAffine<float>", out, {{"x", x}, {"out", out}},
                   {{"a", a}, {"k", k}});
  prog.add(poplar::program::Execute(cs, {dc, "rowAffine"}));
  return out;
}

std::pair<poplar::Tensor, poplar::Tensor>
rowNormalise(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &mean,
             const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
             const poplar::Tensor &beta, poplar::program::Sequence &prog,
             const poplar::DebugContext &dc) {
  const poplar::Tensor out = graph.clone(x, {dc, "out"});
  const poplar::Tensor whitened = graph.clone(x, {dc, "whitened"});
  poplar::ComputeSet cs = graph.addComputeSet({dc, "rowNormalise"});
  addRowVertices(graph, cs, "popnn::RowNormalise<float>", out,
                 {{"x", x}, {"whitened", whitened}, {"out", out}},
                 {{"mean", mean}, {"invStdDev", invStdDev}, {"gamma", gamma}, {"beta", beta}});
  prog.add(poplar::program::Execute(cs, {dc, "rowNormalise"}));
  return {out, whitened};
}

poplar::Tensor rowNormGradient(poplar::Graph &graph, const poplar::Tensor &x,
                               const poplar::Tensor &y, const poplar::Tensor &scale,
                               const poplar::Tensor &invStdDev, const poplar::Tensor &sumX,
                               const poplar::Tensor &sumXY, float invN,
                               poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const poplar::Tensor out = graph.clone(x, {dc, "out"});
  poplar::ComputeSet cs = graph.addComputeSet({dc, "rowNormGradient"});
  addRowVertices(
      graph, cs, "popnn::RowNormGradient<float>", out, {{"x", x}, {"y", y}, {"out", out}},
      {{"scale", scale}, {"invStdDev", invStdDev}, {"sumX", sumX}, {"sumXY", sumXY}}, invN, true);
  prog.add(poplar::program::Execute(cs, {dc, "rowNormGradient"}));
  return out;
}

} // namespace popnn::detail
