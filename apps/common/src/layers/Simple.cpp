#include <tessera/apps/layers/Simple.hpp>

#include <popnn/NonLinearity.hpp>
#include <popnn/Pooling.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

namespace tessera::apps {
namespace {

popnn::pooling::PoolParams maxPoolParams(const poplar::Tensor &x, unsigned kernel, unsigned stride,
                                         unsigned padding) {
  const auto s = x.shape();
  return popnn::pooling::PoolParams(popnn::PoolingType::MAX, {s[2], s[3]}, {kernel, kernel},
                                    {stride, stride}, {int(padding), int(padding)},
                                    {int(padding), int(padding)}, s[1], s[0], x.elementType());
}

} // namespace

poplar::Tensor ReLU::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                             poplar::program::Sequence &prog) {
  poplar::Tensor y = popnn::nonLinearity(ctx.graph, popnn::NonLinearityType::RELU, x, prog, name_);
  if (mode == Mode::Training)
    output_ = y;
  return y;
}

poplar::Tensor ReLU::backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool,
                              poplar::program::Sequence &prog) {
  return popnn::nonLinearityInputGradient(ctx.graph, popnn::NonLinearityType::RELU, output_,
                                          gradOut, prog, name_ + "/grad");
}

poplar::Tensor MaxPool2d::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                  poplar::program::Sequence &prog) {
  poplar::Tensor y =
      popnn::pooling::pool(ctx.graph, maxPoolParams(x, kernel_, stride_, padding_), x, prog, name_);
  if (mode == Mode::Training) {
    input_ = x;
    output_ = y;
  }
  return y;
}

poplar::Tensor MaxPool2d::backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool,
                                   poplar::program::Sequence &prog) {
  return popnn::pooling::poolInputGradient(ctx.graph,
                                           maxPoolParams(input_, kernel_, stride_, padding_),
                                           input_, output_, gradOut, false, prog, name_ + "/grad");
}

poplar::Tensor GlobalAvgPool::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                      poplar::program::Sequence &prog) {
  const auto s = x.shape();
  std::vector<std::size_t> fieldDims;
  std::size_t fieldSize = 1;
  for (std::size_t d = 2; d < s.size(); ++d) {
    fieldDims.push_back(d);
    fieldSize *= s[d];
  }
  if (mode == Mode::Training) {
    inputShape_ = s;
    input_ = x;
  }
  poplar::Tensor sum =
      popops::reduce(ctx.graph, x, x.elementType(), fieldDims, popops::Operation::ADD, prog, name_);
  namespace pe = popops::expr;
  popops::mapInPlace(ctx.graph, pe::_1 * pe::Const(1.0f / float(fieldSize)), {sum}, prog,
                     name_ + "/scale");
  return sum;
}

poplar::Tensor GlobalAvgPool::backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool,
                                       poplar::program::Sequence &prog) {
  // Every field element receives gradOut / fieldSize: a broadcast view scaled into a new,
  // linearly mapped tensor of the input's shape.
  std::size_t fieldSize = 1;
  for (std::size_t d = 2; d < inputShape_.size(); ++d)
    fieldSize *= inputShape_[d];
  poplar::Tensor g = gradOut.reshape({inputShape_[0], inputShape_[1], 1})
                         .broadcast(static_cast<unsigned>(fieldSize), 2)
                         .reshape(inputShape_);
  // Mapped as the forward input was, so the layers before see their own layout.
  poplar::Tensor out = ctx.graph.clone(gradOut.elementType(), input_, name_ + "/grad");
  namespace pe = popops::expr;
  popops::mapWithOutput(ctx.graph, pe::_1 * pe::Const(1.0f / float(fieldSize)), {g}, out, prog,
                        name_ + "/grad");
  return out;
}

poplar::Tensor Flatten::forward(BuildContext &, const poplar::Tensor &x, Mode mode,
                                poplar::program::Sequence &) {
  if (mode == Mode::Training)
    inputShape_ = x.shape();
  return x.reshape({x.dim(0), x.numElements() / x.dim(0)});
}

poplar::Tensor Flatten::backward(BuildContext &, const poplar::Tensor &gradOut, bool,
                                 poplar::program::Sequence &) {
  return gradOut.reshape(inputShape_);
}

} // namespace tessera::apps
