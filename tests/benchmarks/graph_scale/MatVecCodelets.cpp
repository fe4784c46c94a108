// The codelets of graph_scale_bench's matrix-vector workloads, loaded at run time with
// graph.addCodelets as in Poplar's matrix-vector tutorial: a partial dot product of one block of
// a matrix row with the same block of the vector, and the sum of a row's partial products.
#include <poplar/Vertex.hpp>

using namespace poplar;

class PartialDotProduct : public Vertex {
public:
  Input<Vector<float>> row;
  Input<Vector<float>> vec;
  Output<float> out;

  bool compute() {
    float sum = 0;
    for (std::size_t i = 0; i < row.size(); ++i)
      sum += row[i] * vec[i];
    *out = sum;
    return true;
  }
};

class RowSum : public Vertex {
public:
  Input<Vector<float>> partials;
  Output<float> out;

  bool compute() {
    float sum = 0;
    for (std::size_t i = 0; i < partials.size(); ++i)
      sum += partials[i];
    *out = sum;
    return true;
  }
};
