// Pieces the recurrent layers (Lstm.cpp, Gru.cpp) share: their option table, the step counter
// that drives a Repeat loop through a sequence with dynamic slices, gate reordering and
// argument checks.
#pragma once

#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn::rnn_detail {

/// The options lstm:: and gru:: functions take (see popnn/Lstm.hpp).
struct RnnOptions {
  double availableMemoryProportion = 0.6;
  bool inferenceOnly = false;
  std::string partialsType = "float";
  std::string weightAccumulatorsType; // empty: the data type
  bool preCalcWeights = false;
  std::string recomputationMode = "none";
  bool codeReuse = false;
  unsigned numShards = 1; ///< consecutive chunks of steps the loop runs as (no result changes)
};

/// Adds `loop` to `prog` to run `steps` times, as options.numShards consecutive Repeats (checked
/// against `steps`: poputil::poplibs_error naming numShards).
void addShardedLoop(const std::string &fn, const RnnOptions &options, std::size_t steps,
                    const poplar::program::Sequence &loop, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext);

/// Parses `options` for function `fn`; throws poplar::invalid_option for an unknown name or a
/// bad value.
RnnOptions parseRnnOptions(const std::string &fn, const poplar::OptionFlags &options);

/// The options handed to poplin::matMul.
poplar::OptionFlags matMulOptions(const RnnOptions &options);

/// The type weight gradients are returned in.
poplar::Type weightAccumulatorType(const RnnOptions &options, const poplar::Type &dataType);

/// A new variable spread linearly over the tiles.
poplar::Tensor newMapped(poplar::Graph &graph, const poplar::Type &type,
                         const std::vector<std::size_t> &shape, const std::string &name);

/// A new variable holding a copy of `t` (copied in `prog`), spread linearly over the tiles.
poplar::Tensor copyToNew(poplar::Graph &graph, const poplar::Tensor &t,
                         poplar::program::Sequence &prog, const std::string &name);

/// An UNSIGNED_INT [1] step index set to `start` in `prog`.
poplar::Tensor newStepIndex(poplar::Graph &graph, unsigned start, poplar::program::Sequence &prog,
                            const std::string &name);
/// Adds `index += 1` (forward) or `index -= 1` to `body`.
void advanceStepIndex(poplar::Graph &graph, const poplar::Tensor &index, bool forward,
                      poplar::program::Sequence &body);

/// seq[index] (seq is [steps][…]); returns a new tensor of shape seq.shape()[1:].
poplar::Tensor sliceStep(poplar::Graph &graph, const poplar::Tensor &seq,
                         const poplar::Tensor &index, poplar::program::Sequence &body,
                         const std::string &name);
/// seq[index] = step.
void updateStep(poplar::Graph &graph, const poplar::Tensor &seq, const poplar::Tensor &step,
                const poplar::Tensor &index, poplar::program::Sequence &body,
                const std::string &name);

/// The permutation `order` (which unit each outermost slice holds) checked: every unit in
/// [0, numUnits) once. Throws poputil::poplibs_error naming `fn` and cellOrder otherwise.
void checkCellOrder(const std::string &fn, const std::vector<unsigned> &order, unsigned numUnits);
/// t's outermost slices rearranged so slice u holds unit u.
poplar::Tensor toCanonical(const poplar::Tensor &t, const std::vector<unsigned> &order);
/// The inverse of toCanonical: slice j holds unit order[j].
poplar::Tensor fromCanonical(const poplar::Tensor &t, const std::vector<unsigned> &order);
/// Weights [units][rows][out] held in `order` as one matrix [rows][units·out], units in canonical
/// order, so one multiply feeds every gate.
poplar::Tensor unitsAsMatrix(const poplar::Tensor &w, const std::vector<unsigned> &order);
/// The inverse of unitsAsMatrix: a canonical [rows][units·out] matrix as [units][rows][out] in
/// `order` (how gradients are returned in the caller's layout).
poplar::Tensor matrixAsUnits(const poplar::Tensor &m, std::size_t units, std::size_t out,
                             const std::vector<unsigned> &order);
/// The output each step started from: h_{-1} = `init`, h_0, …, h_{T-2} as a new [T][batch][out]
/// tensor, read from the forward intermediates [T][kinds][batch][out] at kind `outputKind`.
poplar::Tensor previousOutputs(poplar::Graph &graph, const poplar::Tensor &init,
                               const poplar::Tensor &fwdInter, unsigned outputKind,
                               poplar::program::Sequence &prog, const std::string &name);
/// A layer's output shape: [steps][batch][out] with the full sequence, else the last [batch][out].
std::vector<std::size_t> layerOutputShape(bool fullSequence, std::size_t steps, std::size_t batch,
                                          std::size_t out);

/// Throws poputil::poplibs_error "fn: argument 'name' (…) must have shape […]" unless t has
/// `shape` and `type`.
void requireTensor(const std::string &fn, const std::string &name, const poplar::Tensor &t,
                   const std::vector<std::size_t> &shape, const poplar::Type &type);
/// Checks the layer shape itself: FLOAT or HALF, two layer sizes, nothing zero.
void requireLayer(const std::string &fn, const poplar::Type &type, std::size_t batch,
                  std::size_t steps, const std::vector<std::size_t> &layerSizes);

/// Run-time sequence lengths prepared once before a loop: `lengths` INT {batch} or {1} and
/// `limit` INT {1}, the largest of them (steps at or past it are skipped), and the smallest.
struct StepLimits {
  poplar::Tensor lengths;
  poplar::Tensor limit;
  poplar::Tensor shortest; ///< INT {1}: the smallest length
  bool valid() const { return lengths.valid(); }
};

/// Checks params.varTimeSteps (shape {batch} or {1}, INT or UNSIGNED_INT; throws
/// poputil::poplibs_error naming it) and, if set, adds to `prog` its conversion to INT and its
/// maximum. A null tensor gives an invalid StepLimits.
StepLimits prepareStepLimits(poplar::Graph &graph, const std::string &fn,
                             const poplar::Tensor &varTimeSteps, std::size_t batch,
                             poplar::program::Sequence &prog, const std::string &name);

/// What a forward pass records per step: with `keepIntermediates` (training) every step's
/// intermediates {steps, numIntermediates, batch, width}, else with `outputFullSequence` every
/// step's output {steps, batch, width}; at most one is valid. Then the run-time sequence
/// lengths (prepareStepLimits of `varTimeSteps`), and when there are some the records are
/// zeroed in `prog` (skipped steps leave zeros).
struct ForwardRecords {
  poplar::Tensor intermediates;
  poplar::Tensor outputs;
  StepLimits limits;
};
ForwardRecords newForwardRecords(poplar::Graph &graph, const std::string &fn,
                                 const poplar::Type &type, std::size_t steps,
                                 std::size_t numIntermediates, std::size_t batch, std::size_t width,
                                 bool keepIntermediates, bool outputFullSequence,
                                 const poplar::Tensor &varTimeSteps,
                                 poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                 const std::string &name);

/// {batch} of `type`: 1 where step `index` is below the batch entry's length, else 0.
poplar::Tensor stepMask(poplar::Graph &graph, const StepLimits &limits, const poplar::Tensor &index,
                        std::size_t batch, const poplar::Type &type,
                        poplar::program::Sequence &body, const std::string &name);

/// Adds to `loop` the program `step`, run only while `index` is below limits.limit (always if
/// limits is not valid).
void addLimitedStep(poplar::Graph &graph, const StepLimits &limits, const poplar::Tensor &index,
                    const poplar::program::Sequence &step, poplar::program::Sequence &loop,
                    const std::string &name);

} // namespace popnn::rnn_detail
