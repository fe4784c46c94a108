// The vertex of the matrix-vector example: one dot product of a matrix row with a vector.
#pragma once

#include <poplar/Vertex.hpp>

class DotProductVertex : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> row;
  poplar::Input<poplar::Vector<float>> vec;
  poplar::Output<float> out;

  bool compute() {
    float sum = 0;
    for (std::size_t i = 0; i < row.size(); ++i)
      sum += row[i] * vec[i];
    *out = sum;
    return true;
  }
};

/// Registers DotProductVertex with the SDK (what `graph.addCodelets` does for a codelet file).
inline bool registerMatVecCodelets() {
  static const bool done = tessera::VertexTypeBuilder<DotProductVertex>("DotProductVertex")
                               .field("row", &DotProductVertex::row)
                               .field("vec", &DotProductVertex::vec)
                               .field("out", &DotProductVertex::out)
                               .add();
  return done;
}
