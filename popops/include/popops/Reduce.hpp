// Reductions over any set of dimensions: popops::reduce, reduceWithOutput, reduceMany.
//
// A reduction runs as two compute sets. First every tile folds the input elements it holds
// into per-tile partials (one per output element it touches), in float for FLOAT and HALF
// input. Then the tiles owning the output combine those partials in tile order and apply the
// scale and the update. Every order is fixed when the graph is built, so results are
// bit-identical whatever the host thread count. FLOAT sums are blocked (SIMD accumulators
// inside blocks of 2048 elements, block sums added in order).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Operation.hpp>

namespace popops {

/// The operation of a reduction plus what to do with its result.
///  - `update`: out = out + result (LOG_ADD: out = log(exp(out) + exp(result))) instead of
///    out = result.
///  - `scale` (a FLOAT tensor of one element, when `useScale`): result = scale * reduce(in)
///    (LOG_ADD: reduce(in) + scale, a multiply in log space).
/// `update` and `scale` are only valid with ADD, SQUARE_ADD and LOG_ADD.
struct ReduceParams {
  ReduceParams() = default;
  /// Implicit, so an Operation can be passed where ReduceParams are expected.
  ReduceParams(popops::Operation op, bool update = false) : op(op), update(update) {}
  ReduceParams(popops::Operation op, bool update, poplar::Tensor scale)
      : op(op), update(update), useScale(true), scale(std::move(scale)) {}
  /// A constant float scale is not accepted (as in PopLibs): pass a tensor.
  ReduceParams(popops::Operation op, float constantScale, bool update = false) = delete;

  popops::Operation op = popops::Operation::ADD;
  bool update = false;
  bool useScale = false;
  poplar::Tensor scale;
};

/// Reduces `in` over the dimensions `dims` (any subset of in's dimensions, in any order; empty
/// means a copy or cast; all of them gives a scalar). The result keeps the other dimensions in
/// their order and has element type `outType`; it is a new tensor spread linearly over tiles.
/// Supported types: ADD, SQUARE_ADD, MUL, LOG_ADD, MIN, MAX: FLOAT/HALF -> FLOAT/HALF (LOG_ADD
/// has no INT), INT -> INT (not LOG_ADD); LOGICAL_AND, LOGICAL_OR: BOOL -> BOOL.
/// Throws poputil::poplibs_error naming `in` for a dimension it does not have, a repeated
/// dimension, an unsupported type, or a scale/update on an operation that has none.
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});

/// As above with the output type equal to in's element type.
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});

/// As reduce(), writing into `out`, whose shape must be in's shape without `dims` (throws
/// poputil::poplibs_error naming `out` and both shapes otherwise). If out's tile mapping is
/// incomplete it is set (linearly); otherwise it is kept and the final stage runs where `out`
/// lives.
void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});

/// Deprecated PopLibs form: adds the reduction's vertices to `css` (creating its two compute
/// sets if `css` has fewer), for the caller to Execute in order.
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});
void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});

/// One reduction of a reduceMany() call (members as for reduce()). Without `useOutType` the
/// output takes in's element type; `outType` is ignored when reduceMany is given outputs.
struct SingleReduceOp {
  poplar::Tensor in;
  std::vector<std::size_t> dims;
  ReduceParams params;
  bool useOutType;
  poplar::Type outType;
  std::string debugName;

  SingleReduceOp(poplar::Tensor in, std::vector<std::size_t> dims, ReduceParams params,
                 poplar::Type outType, std::string debugName = "")
      : in(std::move(in)), dims(std::move(dims)), params(std::move(params)), useOutType(true),
        outType(outType), debugName(std::move(debugName)) {}
  SingleReduceOp(poplar::Tensor in, std::vector<std::size_t> dims, ReduceParams params,
                 std::string debugName = "")
      : in(std::move(in)), dims(std::move(dims)), params(std::move(params)), useOutType(false),
        outType(poplar::BOOL), debugName(std::move(debugName)) {}
};

/// Performs all `reductions` side by side in the same two compute sets. If `outputs` is empty
/// it is filled with new tensors (then no reduction may have `params.update`); otherwise it must
/// hold one output per reduction. Throws poputil::poplibs_error for either mismatch.
void reduceMany(poplar::Graph &graph, const std::vector<SingleReduceOp> &reductions,
                std::vector<poplar::Tensor> &outputs, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext = {},
                const poplar::OptionFlags &options = {});

} // namespace popops
