// popnn::LossRows<float> and LossRowsWithAccuracy<float>: calcLoss for whole rows of model
// outputs — per row, deltas and a loss from its label (and whether the label is the argmax);
// rows labelled MASKED_LABEL_CODE get zero deltas, loss and correct. Rows are dealt round-robin
// to the worker contexts.
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "popnn/PopnnCodelets.hpp"
#include "popnn/kernels/LossKernels.hpp"

namespace tessera::codelets::popnn {
namespace {

/// The kernel pointers are taken once, when the type registers (never looked up per call).
CrossEntropyRowFn gCrossEntropyRow = nullptr;
SumSquaredRowFn gSumSquaredRow = nullptr;
LabelIsRowMaxFn gLabelIsRowMax = nullptr;

/// Cross entropy or sum squared per row; WithAccuracy also writes, per row, 1 when the label is
/// the row's argmax (popnn::argMax's pick) and 0 otherwise, from the row already being read —
/// calcLoss with numCorrect needs no separate argMax pass over the outputs.
template <bool WithAccuracy> class LossRowsT : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<float>> modelOutputs;
  poplar::Input<poplar::Vector<unsigned>> labels;
  poplar::Input<float> deltasScale;
  poplar::Input<float> modelOutputScaling;
  poplar::Output<poplar::Vector<float>> deltas;
  poplar::Output<poplar::Vector<float>> loss;
  poplar::Output<poplar::Vector<int>> correct; ///< 1 or 0; connected only WithAccuracy.
  unsigned rowLength;
  bool crossEntropy;

  bool compute(unsigned workerId) {
    const float invScaling = 1.0f / *modelOutputScaling, scale = *deltasScale;
    for (std::size_t r = workerId; r < labels.size(); r += numWorkers()) {
      const float *p = modelOutputs.data() + r * rowLength;
      float *d = deltas.data() + r * rowLength;
      const unsigned label = labels[r];
      if (label >= rowLength) { // MASKED_LABEL_CODE (or out of range): no contribution
        for (unsigned i = 0; i < rowLength; ++i)
          d[i] = 0.0f;
        loss[r] = 0.0f;
        if constexpr (WithAccuracy)
          correct[r] = 0;
        continue;
      }
      loss[r] = crossEntropy ? gCrossEntropyRow(p, d, rowLength, label, invScaling, scale)
                             : gSumSquaredRow(p, d, rowLength, label);
      if constexpr (WithAccuracy)
        correct[r] = gLabelIsRowMax(p, rowLength, label) ? 1 : 0;
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 40 + (modelOutputs.size() * (WithAccuracy ? 4 : 3)) / (2 * 6);
  }
};

template <bool WithAccuracy>
tessera::VertexTypeBuilder<LossRowsT<WithAccuracy>> lossRowsType(const char *name) {
  using V = LossRowsT<WithAccuracy>;
  tessera::VertexTypeBuilder<V> b(name);
  b.field("modelOutputs", &V::modelOutputs)
      .field("labels", &V::labels)
      .field("deltasScale", &V::deltasScale)
      .field("modelOutputScaling", &V::modelOutputScaling)
      .field("deltas", &V::deltas)
      .field("loss", &V::loss)
      .field("rowLength", &V::rowLength)
      .field("crossEntropy", &V::crossEntropy);
  return b;
}

} // namespace

void registerLossVertices() {
  gCrossEntropyRow = crossEntropyRowKernel();
  gSumSquaredRow = sumSquaredRowKernel();
  gLabelIsRowMax = labelIsRowMaxKernel();
  lossRowsType<false>("popnn::LossRows<float>").add();
  lossRowsType<true>("popnn::LossRowsWithAccuracy<float>")
      .field("correct", &LossRowsT<true>::correct)
      .add();
}

} // namespace tessera::codelets::popnn
