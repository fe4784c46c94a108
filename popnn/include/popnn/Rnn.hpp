// Shared parameters and tensor factories of popnn's recurrent layers (popnn::rnn): the shape of
// a sequence model (type, batch, time steps, input and output sizes) and tensors laid out for
// slicing one time step at a time along the outermost dimension.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {
namespace rnn {

/// The shape of one recurrent layer, as every cell type (LSTM, GRU, custom) sees it.
struct RnnParams {
  /// Element type of activations, states and weights (FLOAT or HALF).
  poplar::Type dataType;
  /// Sequences processed together.
  std::size_t batchSize;
  /// Steps in every sequence.
  std::size_t maxTimeSteps;
  /// Deprecated spelling of maxTimeSteps (kept equal to it).
  std::size_t timeSteps;
  /// {inputSize, outputSize}.
  std::vector<std::size_t> layerSizes;

  RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
            std::vector<std::size_t> layerSizes);

  /// Shards a layer can be split into along time (Tessera does not shard: always 1).
  std::size_t getMaxShards(const poplar::Graph &graph) const;
  /// Bytes of one step's input per tile when a step is spread over every tile.
  std::size_t getInputBytesPerTile(const poplar::Graph &graph) const;
  /// Bytes of one step's output per tile when a step is spread over every tile.
  std::size_t getOutputBytesPerTile(const poplar::Graph &graph) const;
  /// Whether the step count is a run-time tensor (never, in this version).
  bool variableTimeSteps() const;
  /// Whether each batch entry has its own run-time step count (never, in this version).
  bool batchVariableTimeSteps() const;
};

/// A state tensor {multiple, batchSize, size} (size = the output size if isOutput, else the
/// input size), spread over the tiles. numShards must be 1.
poplar::Tensor createInitialState(poplar::Graph &graph, const RnnParams &params, bool isOutput,
                                  unsigned multiple, unsigned numShards,
                                  const poplar::DebugContext &debugContext = {});

/// A sequence tensor {timeSteps, batchSize, size}, each step spread over the tiles so that a
/// dynamic slice of one step touches every tile equally.
poplar::Tensor createRecurrentTensor(poplar::Graph &graph, const RnnParams &params, unsigned size,
                                     unsigned numShards,
                                     const poplar::DebugContext &debugContext = {});

/// createRecurrentTensor with size = the input size.
poplar::Tensor createInputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                                 const poplar::DebugContext &debugContext = {});

/// createRecurrentTensor with size = the output size.
poplar::Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params,
                                  unsigned numShards,
                                  const poplar::DebugContext &debugContext = {});

/// {multiple * timeSteps, batchSize, outputSize}: several output sequences stacked in time.
poplar::Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned multiple,
                                  unsigned numShards,
                                  const poplar::DebugContext &debugContext = {});

/// A new sequence tensor s with s[0] = tSingle and s[n] = tBase[n - 1]: the previous step's
/// values for every step (the copies are added to `prog`).
poplar::Tensor shiftRnnTensor(poplar::Graph &graph, const RnnParams &params,
                              const poplar::Tensor &tBase, const poplar::Tensor &tSingle,
                              poplar::program::Sequence &prog, unsigned numShards,
                              const poplar::DebugContext &debugContext = {});

} // namespace rnn
} // namespace popnn
