#include "model/Parameters.hpp"

#include <poplar/Program.hpp>
#include <poprand/RandomGen.hpp>
#include <poputil/TileMapping.hpp>

namespace tessera::bert {

apps::Parameter &registerNormalWeight(apps::BuildContext &ctx, const std::string &name,
                                      const poplar::Tensor &value, float stdDev) {
  apps::Parameter &p = ctx.addParameter(name, value, true);
  // Truncation at two standard deviations: alpha = 2 as BERT's truncated_normal.
  poplar::Tensor init = poprand::truncatedNormal(ctx.graph, &ctx.seedTensor, ctx.nextSeedModifier(),
                                                 value, value.elementType(), 0.0, stdDev, 2.0,
                                                 ctx.initialise, name + "/init");
  ctx.initialise.add(poplar::program::Copy(init, value));
  return p;
}

apps::Parameter &addNormalWeight(apps::BuildContext &ctx, const std::string &name,
                                 const std::vector<std::size_t> &shape, float stdDev) {
  poplar::Tensor w = ctx.graph.addVariable(ctx.dataType, shape, name);
  const std::size_t rowLength = shape.back();
  poputil::mapTensorLinearly(ctx.graph, w, unsigned(rowLength), unsigned(rowLength));
  return registerNormalWeight(ctx, name, w, stdDev);
}

apps::Parameter &addConstantParameter(apps::BuildContext &ctx, const std::string &name,
                                      std::size_t size, float value) {
  poplar::Tensor t = ctx.graph.addVariable(ctx.dataType, {size}, name);
  // Small vectors, each whole on one tile, the next parameter's on the next tile: on tile 0
  // together, their optimiser updates' vertices alone would fill it.
  const unsigned tiles = ctx.graph.getTarget().getNumTiles();
  ctx.graph.setTileMapping(t, unsigned(1 + ctx.parameters().size()) % tiles);
  apps::Parameter &p = ctx.addParameter(name, t, false);
  poplar::Tensor c = ctx.graph.addConstant(ctx.dataType, {size}, value, name + "/init");
  ctx.graph.setTileMapping(c, ctx.graph.getTileMapping(t));
  ctx.initialise.add(poplar::program::Copy(c, t));
  return p;
}

} // namespace tessera::bert
