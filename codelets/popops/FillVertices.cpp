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

/// popops::Fill2d<T>: every region of `out` = value. One vertex fills a tile's many small
/// regions (a tensor whose tile mapping is element by element), which as Fill vertices would be
/// one vertex, one call and one piece of vertex state each.
template <class T> class Fill2d : public poplar::MultiVertex {
public:
  poplar::Vector<poplar::Output<poplar::Vector<T>>> out;
  T value;

  bool compute(unsigned workerId) {
    // Regions are typically tiny: worker 0 does them all (the tile's workers run one after
    // another on one host thread anyway).
    if (workerId != 0)
      return true;
    for (std::size_t r = 0; r < out.size(); ++r) {
      auto &region = out[r];
      if constexpr (std::is_same_v<T, float>) {
        gFillFloat(region.data(), region.size(), value);
      } else {
        for (std::size_t i = 0; i < region.size(); ++i)
          region[i] = value;
      }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t elements = 0;
    for (std::size_t r = 0; r < out.size(); ++r)
      elements += out[r].size();
    return 20 + 4 * out.size() + elements / 2;
  }
};

template <class T> void registerFill(const char *name, const char *name2d) {
  tessera::VertexTypeBuilder<Fill<T>>(name)
      .field("out", &Fill<T>::out)
      .field("value", &Fill<T>::value)
      .add();
  tessera::VertexTypeBuilder<Fill2d<T>>(name2d)
      .field("out", &Fill2d<T>::out)
      .field("value", &Fill2d<T>::value)
      .add();
}

} // namespace

void registerFillVertices() {
  gFillFloat = fillFloatKernel();
  registerFill<float>("popops::Fill<float>", "popops::Fill2d<float>");
  registerFill<int>("popops::Fill<int>", "popops::Fill2d<int>");
  registerFill<unsigned>("popops::Fill<unsigned int>", "popops::Fill2d<unsigned int>");
  registerFill<short>("popops::Fill<short>", "popops::Fill2d<short>");
  registerFill<unsigned short>("popops::Fill<unsigned short>", "popops::Fill2d<unsigned short>");
  registerFill<bool>("popops::Fill<bool>", "popops::Fill2d<bool>");
  registerFill<char>("popops::Fill<char>", "popops::Fill2d<char>");
  registerFill<unsigned char>("popops::Fill<unsigned char>", "popops::Fill2d<unsigned char>");
  registerFill<signed char>("popops::Fill<signed char>", "popops::Fill2d<signed char>");
  registerFill<long long>("popops::Fill<long long>", "popops::Fill2d<long long>");
  registerFill<poplar::half>("popops::Fill<half>", "popops::Fill2d<half>");
  registerFill<unsigned long long>("popops::Fill<unsigned long long>",
                                   "popops::Fill2d<unsigned long long>");
}

} // namespace tessera::codelets::popops
