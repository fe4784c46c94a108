// Golden reference for popops/DynamicSlice.hpp: multiSlice and the multiUpdate family (set, add,
// max, mul), their grouped forms, and dynamicSlice, on flat row-major tensors.
//
// A tensor of `shape` sliced along `dim` is read as [outer][rows][inner] (outer: the product of
// the dimensions before dim, inner: after). A slice of `size` rows starting at offset o is
// rows o … o+size-1 of every [outer] block; multiSlice returns [numOffsets][outer][size][inner],
// which is [numOffsets][shape with dim = size] row-major.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include <reference/Common.hpp>

namespace reference {

/// How offsets are read (the PopLibs slice options).
struct SliceIndexOptions {
  /// remapOutOfBoundIndices: a slice that does not fit starts at row 0.
  bool remapOutOfBoundIndices = false;
  /// paddingIndexUsed: offset == rows slices zeros and updates nothing.
  bool paddingIndexUsed = false;
};

struct SliceGeometry {
  std::size_t outer = 1, rows = 0, inner = 1;
  SliceGeometry(const std::vector<std::size_t> &shape, std::size_t dim) {
    for (std::size_t d = 0; d < dim; ++d)
      outer *= shape[d];
    rows = shape[dim];
    for (std::size_t d = dim + 1; d < shape.size(); ++d)
      inner *= shape[d];
  }
};

/// First base row of a multi-slice at `offset`, or nothing when the slice is out of range:
/// it does not fit (offset + size > rows) and is not remapped, or it is the padding index.
inline std::optional<std::size_t> multiSliceStart(std::size_t offset, std::size_t size,
                                                  std::size_t rows, const SliceIndexOptions &opts) {
  if (opts.paddingIndexUsed && offset == rows)
    return std::nullopt;
  if (offset + size <= rows)
    return offset;
  if (opts.remapOutOfBoundIndices && size <= rows)
    return 0;
  return std::nullopt;
}

/// multiSlice: out[i] = base rows [offsets[i], offsets[i] + size) along dim; an out-of-range
/// slice gives zeros.
inline std::vector<double> multiSlice(const std::vector<double> &base,
                                      const std::vector<std::size_t> &shape, std::size_t dim,
                                      std::size_t size, const std::vector<std::size_t> &offsets,
                                      const SliceIndexOptions &opts = {}) {
  const SliceGeometry g(shape, dim);
  std::vector<double> out(offsets.size() * g.outer * size * g.inner, 0.0);
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const auto start = multiSliceStart(offsets[i], size, g.rows, opts);
    if (!start)
      continue;
    for (std::size_t o = 0; o < g.outer; ++o)
      for (std::size_t r = 0; r < size; ++r)
        for (std::size_t c = 0; c < g.inner; ++c)
          out[((i * g.outer + o) * size + r) * g.inner + c] =
              base[(o * g.rows + *start + r) * g.inner + c];
  }
  return out;
}

enum class UpdateOp { Set, Add, Max, Mul };

/// The multiUpdate family, in place on `base`: for each i in order, every element b of the
/// slice at offsets[i] becomes s (Set), b + scale * s (Add), max(b, s) (Max, NaN wins) or
/// b * s (Mul), rounded to the device `type` after each step (so repeated offsets combine in
/// offset order exactly as the device does). Out-of-range slices are ignored.
inline void multiUpdate(std::vector<double> &base, const std::vector<std::size_t> &shape,
                        std::size_t dim, const std::vector<double> &slices, std::size_t size,
                        const std::vector<std::size_t> &offsets, UpdateOp op,
                        const poplar::Type &type, double scale = 1.0,
                        const SliceIndexOptions &opts = {}) {
  const SliceGeometry g(shape, dim);
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const auto start = multiSliceStart(offsets[i], size, g.rows, opts);
    if (!start)
      continue;
    for (std::size_t o = 0; o < g.outer; ++o)
      for (std::size_t r = 0; r < size; ++r)
        for (std::size_t c = 0; c < g.inner; ++c) {
          double &b = base[(o * g.rows + *start + r) * g.inner + c];
          const double s = slices[((i * g.outer + o) * size + r) * g.inner + c];
          double v = s;
          if (op == UpdateOp::Add)
            v = b + scale * s;
          else if (op == UpdateOp::Max)
            v = (std::isnan(b) || std::isnan(s)) ? NAN : std::max(b, s);
          else if (op == UpdateOp::Mul)
            v = b * s;
          b = (type == poplar::INT || type == poplar::UNSIGNED_INT) ? v : roundTo(type, v);
        }
  }
}

/// Grouped forms: group k of base ([groups][shape…]), slices and offsets
/// ([groups][numOffsets]) is sliced/updated as the ungrouped function does on its own.
inline std::vector<double> groupedMultiSlice(const std::vector<double> &base, std::size_t groups,
                                             const std::vector<std::size_t> &shape, std::size_t dim,
                                             std::size_t size,
                                             const std::vector<std::size_t> &offsets,
                                             const SliceIndexOptions &opts = {}) {
  const std::size_t per = numElements(shape), n = groups ? offsets.size() / groups : 0;
  std::vector<double> out;
  for (std::size_t k = 0; k < groups; ++k) {
    const std::vector<double> bk(base.begin() + k * per, base.begin() + (k + 1) * per);
    const std::vector<std::size_t> ok(offsets.begin() + k * n, offsets.begin() + (k + 1) * n);
    const auto r = multiSlice(bk, shape, dim, size, ok, opts);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

inline void groupedMultiUpdate(std::vector<double> &base, std::size_t groups,
                               const std::vector<std::size_t> &shape, std::size_t dim,
                               const std::vector<double> &slices, std::size_t size,
                               const std::vector<std::size_t> &offsets, UpdateOp op,
                               const poplar::Type &type, double scale = 1.0) {
  const std::size_t per = numElements(shape), n = groups ? offsets.size() / groups : 0;
  const std::size_t slicePer = groups ? slices.size() / groups : 0;
  for (std::size_t k = 0; k < groups; ++k) {
    std::vector<double> bk(base.begin() + k * per, base.begin() + (k + 1) * per);
    const std::vector<double> sk(slices.begin() + k * slicePer,
                                 slices.begin() + (k + 1) * slicePer);
    const std::vector<std::size_t> ok(offsets.begin() + k * n, offsets.begin() + (k + 1) * n);
    multiUpdate(bk, shape, dim, sk, size, ok, op, type, scale);
    std::copy(bk.begin(), bk.end(), base.begin() + k * per);
  }
}

/// dynamicSlice along one dim: an offset >= rows is read as 0 and the slice wraps round the
/// end of the dimension; with paddingIndexUsed, offset == rows gives zeros.
inline std::vector<double> dynamicSlice(const std::vector<double> &base,
                                        const std::vector<std::size_t> &shape, std::size_t dim,
                                        std::size_t size, std::size_t offset,
                                        bool paddingIndexUsed = false) {
  const SliceGeometry g(shape, dim);
  std::vector<double> out(g.outer * size * g.inner, 0.0);
  if (paddingIndexUsed && offset == g.rows)
    return out;
  const std::size_t start = offset < g.rows ? offset : 0;
  for (std::size_t o = 0; o < g.outer; ++o)
    for (std::size_t r = 0; r < size; ++r)
      for (std::size_t c = 0; c < g.inner; ++c)
        out[(o * size + r) * g.inner + c] = base[(o * g.rows + (start + r) % g.rows) * g.inner + c];
  return out;
}

} // namespace reference
