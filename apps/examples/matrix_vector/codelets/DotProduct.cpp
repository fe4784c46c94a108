// The codelet of the matrix-vector example, loaded at run time with graph.addCodelets (as in
// Poplar's tutorial): one dot product of a matrix row with the vector.
#include <poplar/Vertex.hpp>

using namespace poplar;

class DotProductVertex : public Vertex {
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
