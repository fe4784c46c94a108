// popnn::rnn: RnnParams and the sequence/state tensor factories shared by every recurrent layer.
#include <popnn/Rnn.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "NnChecks.hpp"

namespace popnn::rnn {

using poplar::Tensor;

RnnParams::RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
                     std::vector<std::size_t> layerSizes)
    : dataType(dataType), batchSize(batchSize), maxTimeSteps(timeSteps), timeSteps(timeSteps),
      layerSizes(std::move(layerSizes)) {}

std::size_t RnnParams::getMaxShards(const poplar::Graph &) const { return 1; }

namespace {

std::size_t bytesPerTile(const poplar::Graph &graph, const poplar::Type &type, std::size_t n) {
  const std::size_t tiles = graph.getTarget().getNumTiles();
  const std::size_t bytes = n * graph.getTarget().getTypeSize(type);
  return (bytes + tiles - 1) / tiles;
}

std::size_t layerSize(const RnnParams &params, bool output, const char *fn) {
  if (params.layerSizes.size() != 2)
    throw poputil::poplibs_error(popnn::detail::cat(
        fn, ": params.layerSizes must hold {inputSize, outputSize}, not ",
        params.layerSizes.size(), " sizes"));
  return params.layerSizes[output ? 1 : 0];
}

void requireOneShard(unsigned numShards, const char *fn) {
  if (numShards != 1)
    throw poputil::poplibs_error(
        popnn::detail::cat(fn, ": numShards must be 1 (Tessera does not shard), not ", numShards));
}

} // namespace

std::size_t RnnParams::getInputBytesPerTile(const poplar::Graph &graph) const {
  return bytesPerTile(graph, dataType, batchSize * layerSize(*this, false, "getInputBytesPerTile"));
}

std::size_t RnnParams::getOutputBytesPerTile(const poplar::Graph &graph) const {
  return bytesPerTile(graph, dataType, batchSize * layerSize(*this, true, "getOutputBytesPerTile"));
}

bool RnnParams::variableTimeSteps() const { return false; }
bool RnnParams::batchVariableTimeSteps() const { return false; }

Tensor createInitialState(poplar::Graph &graph, const RnnParams &params, bool isOutput,
                          unsigned multiple, unsigned numShards,
                          const poplar::DebugContext &debugContext) {
  requireOneShard(numShards, "createInitialState");
  const std::size_t size = layerSize(params, isOutput, "createInitialState");
  Tensor t = graph.addVariable(params.dataType, {multiple, params.batchSize, size},
                               {debugContext, "initialState"});
  for (unsigned m = 0; m < multiple; ++m)
    poputil::mapTensorLinearly(graph, t[m]);
  return t;
}

Tensor createRecurrentTensor(poplar::Graph &graph, const RnnParams &params, unsigned size,
                             unsigned numShards, const poplar::DebugContext &debugContext) {
  requireOneShard(numShards, "createRecurrentTensor");
  Tensor t = graph.addVariable(params.dataType, {params.timeSteps, params.batchSize, size},
                               {debugContext, "recurrent"});
  // Each step spread over every tile, so a dynamic slice of one step is balanced.
  for (std::size_t s = 0; s < params.timeSteps; ++s)
    poputil::mapTensorLinearly(graph, t[s]);
  return t;
}

Tensor createInputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                         const poplar::DebugContext &debugContext) {
  return createRecurrentTensor(graph, params,
                               static_cast<unsigned>(layerSize(params, false, "createInputTensor")),
                               numShards, debugContext);
}

Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                          const poplar::DebugContext &debugContext) {
  return createOutputTensor(graph, params, 1, numShards, debugContext);
}

Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned multiple,
                          unsigned numShards, const poplar::DebugContext &debugContext) {
  requireOneShard(numShards, "createOutputTensor");
  const std::size_t size = layerSize(params, true, "createOutputTensor");
  Tensor t = graph.addVariable(params.dataType,
                               {multiple * params.timeSteps, params.batchSize, size},
                               {debugContext, "output"});
  for (std::size_t s = 0; s < t.dim(0); ++s)
    poputil::mapTensorLinearly(graph, t[s]);
  return t;
}

Tensor shiftRnnTensor(poplar::Graph &graph, const RnnParams &params, const Tensor &tBase,
                      const Tensor &tSingle, poplar::program::Sequence &prog, unsigned numShards,
                      const poplar::DebugContext &debugContext) {
  requireOneShard(numShards, "shiftRnnTensor");
  if (tBase.rank() < 1 || tBase.dim(0) != params.timeSteps)
    popnn::detail::fail("shiftRnnTensor", "tBase", tBase,
                        popnn::detail::cat("must have ", params.timeSteps, " steps outermost"));
  if (tSingle.shape() != tBase[0].shape())
    popnn::detail::fail("shiftRnnTensor", "tSingle", tSingle,
                        "must have the shape of one step of tBase");
  Tensor shifted = graph.clone(tBase, {debugContext, "shifted"});
  prog.add(poplar::program::Copy(tSingle, shifted[0]));
  if (params.timeSteps > 1)
    prog.add(poplar::program::Copy(tBase.slice(0, params.timeSteps - 1, 0),
                                   shifted.slice(1, params.timeSteps, 0)));
  return shifted;
}

} // namespace popnn::rnn
