// popops::Iota<T>: out[i] = offset + i over one contiguous run, split over the workers.
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

template <class T> class Iota : public poplar::MultiVertex {
public:
  poplar::Output<poplar::Vector<T>> out;
  T offset;

  bool compute(unsigned workerId) {
    const std::size_t n = out.size(), workers = numWorkers();
    const std::size_t begin = n * workerId / workers, end = n * (workerId + 1) / workers;
    for (std::size_t i = begin; i < end; ++i)
      out[i] = static_cast<T>(offset + static_cast<T>(i));
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size(); }
};

template <class T> void registerIota(const char *name) {
  tessera::VertexTypeBuilder<Iota<T>>(name)
      .field("out", &Iota<T>::out)
      .field("offset", &Iota<T>::offset)
      .add();
}

} // namespace

void registerIotaVertices() {
  registerIota<int>("popops::Iota<int>");
  registerIota<unsigned>("popops::Iota<unsigned int>");
}

} // namespace tessera::codelets::popops
