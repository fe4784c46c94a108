// Shared parameters and tensor factories of popnn's recurrent layers (popnn::rnn): the shape of
// a sequence model (type, batch, time steps, input and output sizes) and tensors laid out for
// slicing one time step at a time along the outermost dimension.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
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
  /// Run-time step counts (INT or UNSIGNED_INT): {batchSize} — one per sequence — or {1} —
  /// one for the whole batch. A null tensor: every sequence has maxTimeSteps steps. As in
  /// PopLibs, at a step past a sequence's own length every gate of that batch entry is zero,
  /// so the output recorded for the step (and its intermediates) is zero, while the recurrent
  /// state stops updating: the state returned (and the last output when outputFullSequence is
  /// false) is the one after the sequence's last step (the initial state for length 0). Steps
  /// past the largest length are skipped. Gradients are those of this function: such a step
  /// passes the state gradients through unchanged and gives its gates none.
  poplar::Tensor varTimeSteps;
  /// {inputSize, outputSize}.
  std::vector<std::size_t> layerSizes;

  RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
            std::vector<std::size_t> layerSizes);

  /// As above with run-time step counts `varTimeSteps` (see the member) of at most
  /// `maxTimeSteps` steps.
  RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
            const poplar::Tensor &varTimeSteps, std::vector<std::size_t> layerSizes);

  /// The most shards a layer can be split into along time: one step per shard at least, at
  /// most one shard per tile.
  std::size_t getMaxShards(const poplar::Graph &graph) const;
  /// Bytes of one step's input per tile when a step is spread over every tile.
  std::size_t getInputBytesPerTile(const poplar::Graph &graph) const;
  /// Bytes of one step's output per tile when a step is spread over every tile.
  std::size_t getOutputBytesPerTile(const poplar::Graph &graph) const;
  /// Whether the step count is a run-time tensor (varTimeSteps is set).
  bool variableTimeSteps() const;
  /// Whether each batch entry has its own run-time step count (varTimeSteps holds more than
  /// one element).
  bool batchVariableTimeSteps() const;
};

/// A state tensor {multiple, batchSize, size} (size = the output size if isOutput, else the
/// input size), spread over the tiles. numShards (1 … maxTimeSteps) does not change the layout
/// in Tessera: shards are run one after the other over the same tensors.
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
poplar::Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                                  const poplar::DebugContext &debugContext = {});

/// {multiple * timeSteps, batchSize, outputSize}: several output sequences stacked in time.
poplar::Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned multiple,
                                  unsigned numShards,
                                  const poplar::DebugContext &debugContext = {});

/// A new sequence tensor s with s[0] = tSingle and s[n] = tBase[n - 1]: the previous step's
/// values for every step (the copies are added to `prog`). tBase may stack `multiple` tensors
/// per step ([multiple * timeSteps][…]); the shift is then by `multiple` rows and tSingle
/// holds `multiple` rows (or, for multiple = 1, one step's shape).
poplar::Tensor shiftRnnTensor(poplar::Graph &graph, const RnnParams &params,
                              const poplar::Tensor &tBase, const poplar::Tensor &tSingle,
                              poplar::program::Sequence &prog, unsigned numShards,
                              const poplar::DebugContext &debugContext = {});

/// One time step's tensors as the loop body of Rnn() sees them.
struct RnnSlice {
  std::vector<poplar::Tensor> inputs;  ///< this step's slice of each input sequence
  poplar::Tensor interimIn;            ///< this step's slice of *interimIn (if given)
  poplar::Tensor interimOut;           ///< written by the body; stored into *interimOut
  std::vector<poplar::Tensor> outputs; ///< written by the body; stored into each output
};

/// Per batch entry flags for steps within a run-time step limit, {batchSize} of the data type:
/// mask[b] = 1 if the step is below varTimeSteps[b], else 0; inverse = 1 − mask. Set only when
/// each batch entry has its own length (RnnParams::batchVariableTimeSteps()).
struct RnnBatchwiseFlags {
  poplar::Tensor mask;
  poplar::Tensor inverse;

  bool valid() const { return mask.valid(); }
};

/// The loop position handed to the body: `begin` is the first step of the current shard and
/// `counter` the step index within the shard (both UNSIGNED_INT [1]; with one shard begin is 0
/// and counter the step itself; counter counts down if reverse). With run-time lengths,
/// `variableSeqFlag` (BOOL scalar) says whether some sequence has already ended at this step.
struct TimeStepState {
  poplar::Tensor begin;
  poplar::Tensor counter;
  poplar::Tensor variableSeqFlag;
};

/// The body of Rnn(): called once while the graph is built, it returns the program of one time
/// step. Arguments: the graph, the time step, the batchwise flags, the state tensors (update
/// them in place), the step's slices, a vector to fill with tensors the body creates per step
/// (stored into Rnn()'s `created` sequences), a program run once before the loop, a debug name.
using LoopBodyType = std::function<poplar::program::Sequence(
    poplar::Graph &graph, const TimeStepState &time, const RnnBatchwiseFlags &,
    std::vector<poplar::Tensor> &, const RnnSlice &slice, std::vector<poplar::Tensor> &,
    poplar::program::Sequence *, const poplar::DebugNameAndId &)>;

/// The gather callback of the gather form of Rnn(): called once while the graph is built (and
/// once more for a final shorter group), it returns the program that consumes a group of
/// steps. Arguments: the graph, the group's slices (inputs: each gather input's steps of the
/// group flattened to [steps * batch][…]; interimIn: the temporaries the loop body wrote for
/// those steps, [steps * numTemps][batch][outputSize], first step first), the number of steps
/// in the group, a program run once before the loop (null for the final group), a debug name.
using GatherBodyType = std::function<poplar::program::Sequence(
    poplar::Graph &graph, const RnnSlice &slice, unsigned stepsPerGather,
    poplar::program::Sequence *, const poplar::DebugNameAndId &)>;

/// Stores state tensor `stateIndex` into `output` [timeSteps][…] after every step.
struct StateSequence {
  poplar::Tensor output;
  std::size_t stateIndex;
};

/// Runs a custom cell `loopFn` over every time step in one Repeat loop (last step first if
/// `reverse`). Before the loop, `prog` copies `initState` into new state tensors; each step
/// slices `inputs` (and *interimIn) at the step, runs the body, then stores slice.outputs,
/// slice.interimOut and the body's created tensors into `outputs`, *interimOut and `created`
/// (sequences [timeSteps][…], or [timeSteps * k][…] for k tensors per step) at the step, and the
/// state `stateSequence.stateIndex` into stateSequence.output if that is valid. The per-step
/// output buffers persist between steps. Returns the state tensors after the last step.
/// With params.varTimeSteps only the steps below the largest length run (the others store
/// nothing) and the body receives the batchwise flags and variableSeqFlag; what a step past a
/// sequence's end does is up to the body. numShards (1 … maxTimeSteps) splits the steps into
/// that many consecutive chunks run one after the other: the results are those of one shard.
/// Option `codeReuse` (true, false) is accepted. Throws poputil::poplibs_error naming a
/// sequence whose outermost dimension is not a multiple of timeSteps, or a bad numShards.
std::vector<poplar::Tensor>
Rnn(poplar::Graph &graph, const RnnParams &params, bool reverse,
    const std::vector<poplar::Tensor> &initState, const StateSequence &stateSequence,
    const std::vector<poplar::Tensor> &inputs, const poplar::Tensor *interimIn,
    poplar::Tensor *interimOut, const std::vector<poplar::Tensor> &outputs,
    const std::vector<poplar::Tensor> &created, poplar::program::Sequence &prog,
    const LoopBodyType &loopFn, unsigned numShards, poplar::OptionFlags &options,
    const poplar::DebugContext &debugContext = {});

/// Runs `loopFn` over every step last step first, as the form above (no outputs), handing the
/// body a temporary slice.interimOut {numTemps, batchSize, outputSize} to fill at each step;
/// the temporaries of `stepsPerGather` consecutive steps (≥ 1) are collected and `gatherFn` runs
/// on each full group as soon as its first step has run: groups are [T − k·g, T − (k−1)·g) for
/// g = min(stepsPerGather, T), and the T mod g first steps form a final group gathered after the
/// loop. `interimIn` is sliced per step as in the other form. numShards (1 … maxTimeSteps)
/// changes no result. With run-time lengths (params.varTimeSteps) the groups stay the same, the
/// steps past the longest sequence do not run (their temporaries are zero) and a full group
/// none of whose steps ran is not gathered; the final group always is.
std::vector<poplar::Tensor>
Rnn(poplar::Graph &graph, const RnnParams &params, const std::vector<poplar::Tensor> &initState,
    const StateSequence &stateSequence, const std::vector<poplar::Tensor> &inputs,
    const poplar::Tensor &interimIn, const unsigned numTemps, poplar::program::Sequence &prog,
    const LoopBodyType &loopFn, const std::vector<poplar::Tensor> &gatherInputs,
    const GatherBodyType &gatherFn, unsigned numShards, unsigned stepsPerGather,
    poplar::OptionFlags &options, const poplar::DebugContext &debugContext = {});

} // namespace rnn
} // namespace popnn
