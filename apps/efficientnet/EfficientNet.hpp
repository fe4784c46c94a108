// EfficientNet (Tan & Le 2019) built from apps/common layers, from a resolved NetworkSpec: the
// stem (3×3 convolution, batch norm, swish), the MBConv blocks (1×1 expansion, k×k depthwise or
// grouped convolution, squeeze-and-excitation, 1×1 projection; stochastic depth on the residual
// branch when the block keeps its shape), the head (1×1 convolution to the head width, global
// average pooling, dropout) and the classifier.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

#include "EfficientNetConfig.hpp"

namespace tessera::efficientnet {

/// Input [B][inputChannels][S][S] → logits [B][numClasses]. Throws cli_error for a bad config
/// (see resolve()).
apps::LayerPtr buildEfficientNet(const EfficientNetConfig &config);

/// One MBConv block of `spec` (exposed for tests).
apps::LayerPtr buildMBConv(const BlockSpec &spec, Norm norm);

} // namespace tessera::efficientnet
