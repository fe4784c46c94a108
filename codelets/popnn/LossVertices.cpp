// popnn::LossRows<float>: calcLoss for whole rows of model outputs — per row, deltas and a loss
// from its label; rows labelled MASKED_LABEL_CODE get zero deltas and loss. Rows are dealt
// round-robin to the worker contexts.
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "popnn/PopnnCodelets.hpp"
#include "popnn/kernels/LossKernels.hpp"

namespace tessera::codelets::popnn {
namespace {

/// The kernel pointers are taken once, when the type registers (never looked up per call).
CrossEntropyRowFn gCrossEntropyRow = nullptr;
SumSquaredRowFn gSumSquaredRow = nullptr;

class LossRows : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<float>> modelOutputs;
  poplar::Input<poplar::Vector<unsigned>> labels;
  poplar::Input<float> deltasScale;
  poplar::Input<float> modelOutputScaling;
  poplar::Output<poplar::Vector<float>> deltas;
  poplar::Output<poplar::Vector<float>> loss;
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
        continue;
      }
      loss[r] = crossEntropy ? gCrossEntropyRow(p, d, rowLength, label, invScaling, scale)
                             : gSumSquaredRow(p, d, rowLength, label);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + (modelOutputs.size() * 3) / (2 * 6); }
};

} // namespace

void registerLossVertices() {
  gCrossEntropyRow = crossEntropyRowKernel();
  gSumSquaredRow = sumSquaredRowKernel();
  tessera::VertexTypeBuilder<LossRows>("popnn::LossRows<float>")
      .field("modelOutputs", &LossRows::modelOutputs)
      .field("labels", &LossRows::labels)
      .field("deltasScale", &LossRows::deltasScale)
      .field("modelOutputScaling", &LossRows::modelOutputScaling)
      .field("deltas", &LossRows::deltas)
      .field("loss", &LossRows::loss)
      .field("rowLength", &LossRows::rowLength)
      .field("crossEntropy", &LossRows::crossEntropy)
      .add();
}

} // namespace tessera::codelets::popnn
