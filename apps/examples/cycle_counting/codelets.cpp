// The example's codelet, compiled when the program calls graph.addCodelets("codelets.cpp").
#include <poplar/Vertex.hpp>

using namespace poplar;

// data[i] = data[i] * 0.5 + 1: one step of a sequence that converges to 2.
class HalveAndAddOne : public Vertex {
public:
  InOut<Vector<float>> data;

  bool compute() {
    for (std::size_t i = 0; i < data.size(); ++i)
      data[i] = data[i] * 0.5f + 1.0f;
    return true;
  }
};
