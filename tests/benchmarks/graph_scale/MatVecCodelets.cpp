// The second codelet of graph_scale_bench's matrix-vector workloads, loaded at run time with
// graph.addCodelets as in Poplar's matrix-vector tutorial: the sum of a row's partial products
// (the partial dot products are the matrix-vector example's DotProductVertex, applied to blocks).
#include <poplar/Vertex.hpp>

using namespace poplar;

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
