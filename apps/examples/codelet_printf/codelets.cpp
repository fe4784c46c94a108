// The example's codelets: printf from vertex code (<print.h>) and the IPU's short vector types
// (<ipudef.h>), compiled when the program calls graph.addCodelets("codelets.cpp").
#include <ipudef.h>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>
#include <print.h>

using namespace poplar;

// The dot product of a row with x, two elements at a time: the row and x are reinterpreted as
// float2s (8-byte aligned, which the `8` in their Vector types asks for), multiplied and summed
// element-wise, and the two lanes added at the end. Each vertex prints its partial sums.
class RowDot : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> row;
  Input<Vector<float, VectorLayout::ONE_PTR, 8>> x;
  Output<float> dot;
  unsigned rowIndex;

  bool compute() {
    const float2 *r2 = reinterpret_cast<const float2 *>(&row[0]);
    const float2 *x2 = reinterpret_cast<const float2 *>(&x[0]);
    float2 acc = {0.0f, 0.0f};
    for (unsigned i = 0; i < row.size() / 2; ++i)
      acc += r2[i] * x2[i];
    const float sum = acc[0] + acc[1];
    *dot = sum;
    printf("row %u: even lanes %.1f + odd lanes %.1f = %.1f\n", rowIndex, acc[0], acc[1], sum);
    return true;
  }
};

// Scales a run of halves in place, a half2 at a time, and prints the first pair.
class ScaleHalves : public Vertex {
public:
  InOut<Vector<half, VectorLayout::SPAN, 8>> data;
  float factor;

  bool compute() {
    half2 *d2 = reinterpret_cast<half2 *>(&data[0]);
    for (unsigned i = 0; i < data.size() / 2; ++i)
      d2[i] = d2[i] * factor;
    printf("scaled %u halves by %.1f, first pair (%.2f, %.2f)\n", unsigned(data.size()), factor,
           float(d2[0][0]), float(d2[0][1]));
    return true;
  }
};
