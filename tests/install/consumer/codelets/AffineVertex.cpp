// Compiled at run time by the installed SDK (graph.addCodelets), so the consumer checks that
// libpoplar finds its own headers in the prefix it was loaded from.
#include <poplar/Vertex.hpp>

using namespace poplar;

class AffineVertex : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;

  bool compute() {
    for (std::size_t i = 0; i < in.size(); ++i)
      out[i] = 2.0f * in[i] + 1.0f;
    return true;
  }
};
