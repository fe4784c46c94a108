// popops::Fill<T>: out[i] = value, split over the tile's worker contexts.
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"
#include "popops/kernels/FillKernels.hpp"

namespace tessera::codelets::popops {
namespace {

/// The kernel pointer is taken once, when the type registers (never looked up per call).
FillFloatFn gFillFloat = nullptr;

template <class T> class Fill : public poplar::MultiVertex {
public:
  poplar::Output<poplar::Vector<T>> out;
  T value;

  bool compute(unsigned workerId) {
    // Contiguous per-worker chunks keep each worker's stores streaming.
    const std::size_t n = out.size(), workers = numWorkers();
    const std::size_t begin = n * workerId / workers, end = n * (workerId + 1) / workers;
    if constexpr (std::is_same_v<T, float>) {
      gFillFloat(out.data() + begin, end - begin, value);
    } else {
      for (std::size_t i = begin; i < end; ++i)
        out[i] = value;
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size() / 2; }
};

template <class T> void registerFill(const char *name) {
  tessera::VertexTypeBuilder<Fill<T>>(name)
      .field("out", &Fill<T>::out)
      .field("value", &Fill<T>::value)
      .add();
}

} // namespace

void registerFillVertices() {
  gFillFloat = fillFloatKernel();
  registerFill<float>("popops::Fill<float>");
  registerFill<int>("popops::Fill<int>");
  registerFill<unsigned>("popops::Fill<unsigned int>");
  registerFill<short>("popops::Fill<short>");
  registerFill<unsigned short>("popops::Fill<unsigned short>");
  registerFill<bool>("popops::Fill<bool>");
  registerFill<char>("popops::Fill<char>");
  registerFill<unsigned char>("popops::Fill<unsigned char>");
  registerFill<signed char>("popops::Fill<signed char>");
  registerFill<long long>("popops::Fill<long long>");
  registerFill<poplar::half>("popops::Fill<half>");
  registerFill<unsigned long long>("popops::Fill<unsigned long long>");
}

} // namespace tessera::codelets::popops
