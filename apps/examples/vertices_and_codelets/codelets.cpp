// The example's codelets, compiled when the program calls graph.addCodelets("codelets.cpp").
// A vertex is a C++ class: its Input/Output/InOut members are the edges the graph connects to
// tensors, its plain members are fields set once when the graph is built, and compute() runs
// once per execution of the compute set the vertex belongs to.
#include <poplar/Vertex.hpp>

using namespace poplar;

// Sums a row of any length into one output element.
class RowSum : public Vertex {
public:
  Input<Vector<float>> row;
  Output<float> sum;

  bool compute() {
    float total = 0;
    for (float x : row) // Vector edges iterate like a container.
      total += x;
    *sum = total;
    return true;
  }
};

// Scales a vector in place by a field set from the host when the graph is built.
class Scale : public Vertex {
public:
  InOut<Vector<float>> data;
  float factor;

  bool compute() {
    for (std::size_t i = 0; i < data.size(); ++i)
      data[i] *= factor;
    return true;
  }
};
