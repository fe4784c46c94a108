// Pointwise convolutions (every kernel dimension 1, stride 1, no padding or dilation) as
// matrix products over the batch × field positions: out[g] (OC × P) = W[g] (OC × IC) ·
// in[g] (IC × P). They then get matMul's planner (serial accumulating steps, no halo) instead
// of the convolution blocks, whose tiny channel blocks cost 2-3× at ResNet's late stages.
//
// Activation tensors keep their logical shape [B][G·C][fields…]; underneath they are views of
// a [G][C][P] matrix laid out for the product (P enumerates batch, then field positions).
//   forward           out = W · in                 A = weights,     B = in
//   input gradient    dIn = Wᵀ · dOut              A given transposed (the stored weights)
//   weight gradient   dW  = dOut · inᵀ             B given transposed (the stored activations)
// so no pass gathers an operand element by element.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>
#include <poplin/MatMulPlan.hpp>

#include "ConvBuild.hpp"
#include "ConvOptions.hpp"
#include "ConvPlan.hpp"
#include "MatMulOptions.hpp"

namespace poplin::detail {

/// [B][G·C][fields…] → [G][C][P] (a view; P enumerates batch, then field positions).
poplar::Tensor asMatrix(const poplar::Tensor &t, std::size_t groups);

/// [G][C][P] → [B][G·C][field…] (a view): the inverse of asMatrix.
poplar::Tensor asActivations(const poplar::Tensor &m, std::size_t batch,
                             const std::vector<std::size_t> &field);

/// Whether a convolution pass is its product alone (pointwise) or keeps transformed or gathered
/// operands beside it (Winograd, im2col, col2im).
enum class ProductShare { WHOLE_PASS, BESIDE_TRANSFORMS };

/// The matMul options of a convolution computed as a product, and its partials type. A
/// pointwise pass's product gets two thirds of the convolution's memory proportion: its operand
/// slices and blocks are temporaries, which share memory with the other passes' (the compiler's
/// liveness analysis), and the rest is for the pass's own inputs and results. Beside transforms
/// it gets a third: the transformed operands, the gathers' exchange buffers and the product's
/// blocks are all on the same tiles at once.
MatMulOptions convMatMulOptions(const ConvOptions &options, ProductShare share);

/// Whether `params` is a pointwise convolution: each output position reads exactly the input
/// position with the same index, through a kernel of one element.
bool isPointwise(const ConvParams &params);

/// The matMul plan of a pointwise pass: forward (and input gradient) M = OC, K = IC, N = P;
/// weight gradient M = OC, K = P, N = IC.
MatMulPlan planPointwise(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                         const ConvOptions &options);

/// A new [B][C][field…] tensor whose memory order is [C][B][field…], spread evenly over the
/// tiles: for activations that only row-wise or plane-wise vertices read or write (a strided
/// product's full side, a Winograd convolution's input and output).
poplar::Tensor createChannelMajorActivations(poplar::Graph &graph, const poplar::Type &type,
                                             std::size_t batch, std::size_t chans,
                                             const std::vector<std::size_t> &field,
                                             const std::string &name);

/// createConvTensor for a pointwise plan (same logical shapes).
poplar::Tensor createPointwiseTensor(poplar::Graph &graph, const ConvPlan &plan,
                                     const ConvParams &params, ConvOperand which,
                                     const poplar::Type &type, const std::string &name);

/// out = conv(in, weights). With `weightsTransposed`, `weights` is [G][IC][OC][1…] (the
/// convolution's transposeAndFlipWeights form: a flip of one element is the identity).
void buildPointwiseConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                               const poplar::Tensor &in, const poplar::Tensor &weights,
                               bool weightsTransposed, const poplar::Tensor &out,
                               poplar::program::Sequence &prog, const std::string &name);

/// buildWeightGradient for a pointwise plan.
void buildPointwiseWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                  const ConvParams &params, const poplar::Tensor &zDeltas,
                                  const poplar::Tensor &activations, const poplar::Tensor &dW,
                                  std::optional<float> scale, poplar::program::Sequence &prog,
                                  const std::string &name);

} // namespace poplin::detail
