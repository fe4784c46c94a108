// One element per row of a [rows][width] block (the rows a tile works on, joined):
//   popops::SelectScalarFromRows<T>: out[r] = params[r][indices[r]] (0 if masked, NaN if the
//     index is out of range);
//   popops::UpdateScalarInRows<T>: params[r][indices[r]] -= 1 (no-op if masked, the row set to
//     NaN if the index is out of range).
// Rows are split between the workers.
#include <limits>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

constexpr unsigned kMaskedLabelCode = 0xFFFFFFFFU;

template <class T> T quietNaN() { return T(std::numeric_limits<float>::quiet_NaN()); }

template <class T> class SelectScalarFromRows : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<T>> params;
  poplar::Input<poplar::Vector<unsigned>> indices;
  poplar::Output<poplar::Vector<T>> out;
  unsigned width;

  bool compute(unsigned workerId) {
    const std::size_t rows = out.size(), workers = numWorkers();
    for (std::size_t r = rows * workerId / workers; r < rows * (workerId + 1) / workers; ++r) {
      const unsigned index = indices[r];
      if (index == kMaskedLabelCode)
        out[r] = T(0.0f);
      else if (index >= width)
        out[r] = quietNaN<T>();
      else
        out[r] = params[r * width + index];
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 4 * out.size(); }
};

template <class T> class UpdateScalarInRows : public poplar::MultiVertex {
public:
  poplar::InOut<poplar::Vector<T>> params;
  poplar::Input<poplar::Vector<unsigned>> indices;
  unsigned width;

  bool compute(unsigned workerId) {
    const std::size_t rows = indices.size(), workers = numWorkers();
    for (std::size_t r = rows * workerId / workers; r < rows * (workerId + 1) / workers; ++r) {
      const unsigned index = indices[r];
      if (index == kMaskedLabelCode)
        continue;
      if (index >= width) {
        for (std::size_t c = 0; c < width; ++c)
          params[r * width + c] = quietNaN<T>();
        continue;
      }
      T &x = params[r * width + index];
      x = T(float(x) - 1.0f);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 4 * indices.size(); }
};

template <class T> void registerFor(const std::string &typeName) {
  using S = SelectScalarFromRows<T>;
  tessera::VertexTypeBuilder<S>("popops::SelectScalarFromRows<" + typeName + ">")
      .field("params", &S::params)
      .field("indices", &S::indices)
      .field("out", &S::out)
      .field("width", &S::width)
      .add();
  using U = UpdateScalarInRows<T>;
  tessera::VertexTypeBuilder<U>("popops::UpdateScalarInRows<" + typeName + ">")
      .field("params", &U::params)
      .field("indices", &U::indices)
      .field("width", &U::width)
      .add();
}

} // namespace

void registerScalarInRowsVertices() {
  registerFor<float>("float");
  registerFor<poplar::half>("half");
}

} // namespace tessera::codelets::popops
