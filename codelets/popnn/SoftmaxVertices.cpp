// popnn::SoftmaxRows<float>: softmax (scaled) or log-softmax of each `rowLength`-element row of
// `in`, whole rows per worker context.
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "popnn/PopnnCodelets.hpp"
#include "popnn/kernels/SoftmaxKernels.hpp"

namespace tessera::codelets::popnn {
namespace {

/// The kernel pointer is taken once, when the type registers (never looked up per call).
SoftmaxRowFn gSoftmaxRow = nullptr;

class SoftmaxRows : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<poplar::Vector<float>> out;
  unsigned rowLength;
  float scale;
  bool logSoftmax;

  bool compute(unsigned workerId) {
    // Rows are dealt round-robin to workers: which rows a worker gets is fixed by the graph.
    const std::size_t rows = rowLength ? in.size() / rowLength : 0;
    for (std::size_t r = workerId; r < rows; r += numWorkers())
      gSoftmaxRow(in.data() + r * rowLength, out.data() + r * rowLength, rowLength, scale,
                  logSoftmax);
    return true;
  }
  /// ~3 passes at 2 floats per cycle per worker, plus exp (~8 cycles per vector).
  std::uint64_t cycleEstimate() const { return 40 + (in.size() * 7) / (2 * 6); }
};

} // namespace

void registerSoftmaxVertices() {
  gSoftmaxRow = softmaxRowKernel();
  tessera::VertexTypeBuilder<SoftmaxRows>("popnn::SoftmaxRows<float>")
      .field("in", &SoftmaxRows::in)
      .field("out", &SoftmaxRows::out)
      .field("rowLength", &SoftmaxRows::rowLength)
      .field("scale", &SoftmaxRows::scale)
      .field("logSoftmax", &SoftmaxRows::logSoftmax)
      .add();
}

} // namespace tessera::codelets::popnn
