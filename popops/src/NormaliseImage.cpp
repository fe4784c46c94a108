// normaliseImage: the input viewed as [pixels][3]; one NormaliseImage vertex per tile over the
// pixels it works on, writing the matching rows of a [pixels][4] output mapped to that tile.
#include <popops/NormaliseImage.hpp>

#include <string>
#include <vector>

#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "RowsByTile.hpp"

namespace popops {

namespace {

bool isImageType(const poplar::Type &t) {
  return t == poplar::UNSIGNED_CHAR || t == poplar::HALF || t == poplar::FLOAT;
}

} // namespace

poplar::Tensor createNormaliseImageInput(poplar::Graph &graph, const poplar::Type &type,
                                         const poplar::ArrayRef<std::size_t> shape,
                                         const poplar::DebugContext &debugContext) {
  if (!isImageType(type))
    throw poputil::poplibs_error(
        "popops::createNormaliseImageInput: type must be UNSIGNED_CHAR, HALF or FLOAT, got " +
        type.toString());
  if (shape.size() == 0 || shape[shape.size() - 1] != 3)
    throw poputil::poplibs_error(
        "popops::createNormaliseImageInput: shape must have an innermost dimension of 3 "
        "channels");
  poplar::Tensor t = graph.addVariable(type, shape, {debugContext, "normaliseImageInput"});
  // Whole pixels per tile: grains of 3 elements.
  poputil::mapTensorLinearly(graph, t, 3, 3);
  return t;
}

poplar::Tensor normaliseImage(poplar::Graph &graph, poplar::program::Sequence &seq,
                              poplar::Tensor tIn, float inScale, poplar::Tensor offsets,
                              poplar::Tensor scales, const poplar::DebugContext &debugContext) {
  const poplar::Type inType = tIn.elementType();
  if (!isImageType(inType))
    throw poputil::poplibs_error(
        "popops::normaliseImage: tIn must be UNSIGNED_CHAR, HALF or FLOAT, got " +
        tIn.shortString());
  if (tIn.rank() == 0 || tIn.dim(tIn.rank() - 1) != 3)
    throw poputil::poplibs_error(
        "popops::normaliseImage: tIn must have an innermost dimension of 3 channels, got " +
        tIn.shortString());
  const poplar::Type outType = inType == poplar::UNSIGNED_CHAR ? poplar::HALF : inType;
  for (const auto &[t, name] :
       {std::make_pair(offsets, "offsets"), std::make_pair(scales, "scales")}) {
    if (t.elementType() != outType || t.shape() != std::vector<std::size_t>{3})
      throw poputil::poplibs_error(std::string("popops::normaliseImage: ") + name +
                                   " must be shape {3} of the output type " + outType.toString() +
                                   ", got " + t.shortString());
  }
  std::vector<std::size_t> outShape = tIn.shape();
  outShape.back() = 4;
  poplar::Tensor out = graph.addVariable(outType, outShape, {debugContext, "normalisedImage"});
  const std::size_t pixels = tIn.numElements() / 3;
  const poplar::Tensor in2d = tIn.reshape({pixels, 3}), out2d = out.reshape({pixels, 4});
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "NormaliseImage"});
  const std::string vertexType = poputil::templateVertex("popops::NormaliseImage", inType, outType);
  for (const auto &[tile, rows] : detail::rowsByTile(graph, in2d)) {
    const poplar::Tensor tileOut = detail::joinRows(out2d, rows);
    graph.setTileMapping(tileOut, tile);
    auto v = graph.addVertex(cs, vertexType,
                             {{"in", detail::joinRows(in2d, rows)},
                              {"out", tileOut},
                              {"offsets", offsets},
                              {"scales", scales}});
    graph.setInitialValue(v["inScale"], inScale);
    graph.setTileMapping(v, tile);
  }
  seq.add(poplar::program::Execute(cs, {debugContext, "NormaliseImage"}));
  return out;
}

} // namespace popops
