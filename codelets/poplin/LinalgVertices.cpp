// The on-tile kernels of poplin's blocked dense linear algebra (Cholesky.hpp, TriangularSolve.hpp,
// experimental/LuFactorization.hpp): each works on one small diagonal block held by one tile,
// while the large off-diagonal updates are poplin::matMul products planned over many tiles.
//   poplin::CholeskyBlock<T>:     a (n×n, symmetric, lower triangle read) becomes its lower
//                                 Cholesky factor L (zeros above the diagonal); inverse = L⁻¹.
//   poplin::TriangularInverse<T>: inverse = T⁻¹ for the lower (lower = 1) or upper triangle T of
//                                 a, with ones assumed on the diagonal when unitDiagonal = 1.
//   poplin::LUBlock<T>:           a (n×n) becomes L\U of the pivot-free Doolittle factorisation
//                                 (unit-diagonal L below, U on and above the diagonal);
//                                 lowerInverse = L⁻¹, upperInverse = U⁻¹.
//   poplin::TriangularMask<T>:    out = in with the unused triangle zeroed (and ones on the
//                                 diagonal when unitDiagonal = 1), for rows firstRow… of
//                                 matrices matrixRows × n; TriangularMaskInPlace<T> in place.
//   poplin::LUExtractLower<T>:    rows of the unit lower factor L [M][M] from packed L\U rows.
//   poplin::experimental::HouseholderVector / HouseholderApply: one reflector of the QR
//                                 factorisation, and its application to rows (FLOAT only).
// Every kernel computes in double and rounds once to T, so a block's result does not depend on
// the type's precision more than one rounding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"

namespace tessera::codelets::poplin {
namespace {

/// inv = T⁻¹ for the n×n lower-triangular matrix t (row-major, double), column by column by
/// forward substitution; unit: ones assumed on the diagonal.
void invertLower(const std::vector<double> &t, std::vector<double> &inv, unsigned n, bool unit) {
  inv.assign(std::size_t(n) * n, 0.0);
  for (unsigned j = 0; j < n; ++j) {
    for (unsigned i = j; i < n; ++i) {
      double s = (i == j) ? 1.0 : 0.0;
      for (unsigned k = j; k < i; ++k)
        s -= t[std::size_t(i) * n + k] * inv[std::size_t(k) * n + j];
      inv[std::size_t(i) * n + j] = unit ? s : s / t[std::size_t(i) * n + i];
    }
  }
}

/// As invertLower for an upper-triangular t (back substitution).
void invertUpper(const std::vector<double> &t, std::vector<double> &inv, unsigned n, bool unit) {
  inv.assign(std::size_t(n) * n, 0.0);
  for (unsigned j = 0; j < n; ++j) {
    for (unsigned ii = j + 1; ii-- > 0;) {
      double s = (ii == j) ? 1.0 : 0.0;
      for (unsigned k = ii + 1; k <= j; ++k)
        s -= t[std::size_t(ii) * n + k] * inv[std::size_t(k) * n + j];
      inv[std::size_t(ii) * n + j] = unit ? s : s / t[std::size_t(ii) * n + ii];
    }
  }
}

template <class Vec> std::vector<double> toDouble(const Vec &v, std::size_t count) {
  std::vector<double> d(count);
  for (std::size_t i = 0; i < count; ++i)
    d[i] = static_cast<double>(static_cast<float>(v[i]));
  return d;
}

template <class T, class Vec> void store(Vec &v, const std::vector<double> &d) {
  for (std::size_t i = 0; i < d.size(); ++i)
    v[i] = static_cast<T>(static_cast<float>(d[i]));
}

template <class T> class CholeskyBlock : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<T>> a;
  poplar::Output<poplar::Vector<T>> inverse;
  unsigned n;

  bool compute() {
    const std::size_t nn = std::size_t(n) * n;
    std::vector<double> l = toDouble(a, nn);
    // Lower factor by columns (Cholesky–Crout); a non-positive pivot gives NaN, as sqrt does.
    for (unsigned j = 0; j < n; ++j) {
      double d = l[std::size_t(j) * n + j];
      for (unsigned k = 0; k < j; ++k)
        d -= l[std::size_t(j) * n + k] * l[std::size_t(j) * n + k];
      const double pivot = std::sqrt(d);
      l[std::size_t(j) * n + j] = pivot;
      for (unsigned i = j + 1; i < n; ++i) {
        double s = l[std::size_t(i) * n + j];
        for (unsigned k = 0; k < j; ++k)
          s -= l[std::size_t(i) * n + k] * l[std::size_t(j) * n + k];
        l[std::size_t(i) * n + j] = s / pivot;
      }
      for (unsigned k = j + 1; k < n; ++k)
        l[std::size_t(j) * n + k] = 0.0;
    }
    std::vector<double> inv;
    invertLower(l, inv, n, false);
    store<T>(a, l);
    store<T>(inverse, inv);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 50 + std::uint64_t(n) * n * n / 2; }
};

template <class T> class TriangularInverse : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> a;
  poplar::Output<poplar::Vector<T>> inverse;
  unsigned n, lower, unitDiagonal;

  bool compute() {
    const std::vector<double> t = toDouble(a, std::size_t(n) * n);
    std::vector<double> inv;
    if (lower)
      invertLower(t, inv, n, unitDiagonal != 0);
    else
      invertUpper(t, inv, n, unitDiagonal != 0);
    store<T>(inverse, inv);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 50 + std::uint64_t(n) * n * n / 3; }
};

template <class T> class LUBlock : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<T>> a;
  poplar::Output<poplar::Vector<T>> lowerInverse, upperInverse;
  unsigned n;

  bool compute() {
    std::vector<double> lu = toDouble(a, std::size_t(n) * n);
    // Doolittle without pivoting: a zero pivot gives inf/NaN, as the division does.
    for (unsigned k = 0; k < n; ++k) {
      const double pivot = lu[std::size_t(k) * n + k];
      for (unsigned i = k + 1; i < n; ++i) {
        const double m = lu[std::size_t(i) * n + k] / pivot;
        lu[std::size_t(i) * n + k] = m;
        for (unsigned j = k + 1; j < n; ++j)
          lu[std::size_t(i) * n + j] -= m * lu[std::size_t(k) * n + j];
      }
    }
    std::vector<double> inv;
    invertLower(lu, inv, n, true);
    store<T>(lowerInverse, inv);
    invertUpper(lu, inv, n, false);
    store<T>(upperInverse, inv);
    store<T>(a, lu);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 50 + std::uint64_t(n) * n * n; }
};

/// The masked value of element (row, col) of a matrix.
template <class T> T masked(T x, std::size_t row, std::size_t col, bool lower, bool unit) {
  if (unit && row == col)
    return T(1.0f);
  const bool keep = lower ? col <= row : col >= row;
  return keep ? x : T(0.0f);
}

template <class T> class TriangularMask : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> in;
  poplar::Output<poplar::Vector<T>> out;
  unsigned n, matrixRows, firstRow, lower, unitDiagonal;

  bool compute() {
    const std::size_t rows = out.size() / n;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t row = (firstRow + r) % matrixRows;
      for (std::size_t c = 0; c < n; ++c)
        out[r * n + c] = masked(T(in[r * n + c]), row, c, lower != 0, unitDiagonal != 0);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size(); }
};

template <class T> class TriangularMaskInPlace : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<T>> data;
  unsigned n, matrixRows, firstRow, lower, unitDiagonal;

  bool compute() {
    const std::size_t rows = data.size() / n;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t row = (firstRow + r) % matrixRows;
      for (std::size_t c = 0; c < n; ++c)
        data[r * n + c] = masked(T(data[r * n + c]), row, c, lower != 0, unitDiagonal != 0);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + data.size(); }
};

/// Rows firstRow… of the unit lower factor L [M][M] of a pivot-free LU whose packed L\U rows
/// (width inWidth = N) are `in`: L[i][j] = in[i][j] below the diagonal for j < min(M, N), 1 on
/// the diagonal, 0 elsewhere.
template <class T> class LUExtractLower : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> in;
  poplar::Output<poplar::Vector<T>> out;
  unsigned inWidth, outWidth, firstRow;

  bool compute() {
    const std::size_t rows = out.size() / outWidth;
    const std::size_t packed = std::min(inWidth, outWidth);
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t i = firstRow + r;
      for (std::size_t j = 0; j < outWidth; ++j)
        out[r * outWidth + j] =
            j == i ? T(1.0f) : (j < i && j < packed ? T(in[r * inWidth + j]) : T(0.0f));
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size(); }
};

/// One Householder reflector from column x (the part of A's column k on and below the
/// diagonal): v with ‖v‖ = 1 and (I − 2·v·vᵀ)·x = (α, 0, …, 0), α = −sign(x₀)·‖x‖ (α = ‖x‖ when
/// x₀ = 0); x is overwritten by (α, 0, …, 0). A zero column gives v = 0 (the identity).
class HouseholderVector : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<float>> x;
  poplar::Output<poplar::Vector<float>> v;

  bool compute() {
    const std::size_t n = x.size();
    double norm2 = 0;
    for (std::size_t i = 0; i < n; ++i)
      norm2 += double(x[i]) * double(x[i]);
    const double norm = std::sqrt(norm2);
    if (norm == 0.0) {
      for (std::size_t i = 0; i < n; ++i)
        v[i] = 0.0f;
      return true;
    }
    const double x0 = x[0];
    const double alpha = x0 > 0 ? -norm : norm;
    // u = x − α·e₀; ‖u‖² = ‖x‖² − 2·α·x₀ + α² = 2·‖x‖·(‖x‖ + |x₀|).
    const double u0 = x0 - alpha;
    const double scale = 1.0 / std::sqrt(2.0 * norm * (norm + std::fabs(x0)));
    v[0] = static_cast<float>(u0 * scale);
    for (std::size_t i = 1; i < n; ++i)
      v[i] = static_cast<float>(double(x[i]) * scale);
    x[0] = static_cast<float>(alpha);
    for (std::size_t i = 1; i < n; ++i)
      x[i] = 0.0f;
    return true;
  }
  std::uint64_t cycleEstimate() const { return 50 + 3 * std::uint64_t(x.size()); }
};

/// rows[r] ← rows[r] − 2·(rows[r]·v)·v for each row of `rows` (rowLength = v's size): the
/// reflector applied to A's columns (as rows of Aᵀ) or to Q's rows (Q ← Q·H).
class HouseholderApply : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<float>> rows;
  poplar::Input<poplar::Vector<float>> v;

  bool compute() {
    const std::size_t len = v.size();
    if (len == 0)
      return true;
    const std::size_t count = rows.size() / len;
    for (std::size_t r = 0; r < count; ++r) {
      float *row = &rows[r * len];
      double dot = 0;
      for (std::size_t i = 0; i < len; ++i)
        dot += double(row[i]) * double(v[i]);
      const double twice = 2.0 * dot;
      for (std::size_t i = 0; i < len; ++i)
        row[i] = static_cast<float>(double(row[i]) - twice * double(v[i]));
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + 4 * std::uint64_t(rows.size()); }
};

template <class T> void registerTyped(const char *suffix) {
  const std::string s = suffix;
  {
    using V = CholeskyBlock<T>;
    tessera::VertexTypeBuilder<V>("poplin::CholeskyBlock" + s)
        .field("a", &V::a)
        .field("inverse", &V::inverse)
        .field("n", &V::n)
        .add();
  }
  {
    using V = TriangularInverse<T>;
    tessera::VertexTypeBuilder<V>("poplin::TriangularInverse" + s)
        .field("a", &V::a)
        .field("inverse", &V::inverse)
        .field("n", &V::n)
        .field("lower", &V::lower)
        .field("unitDiagonal", &V::unitDiagonal)
        .add();
  }
  {
    using V = LUBlock<T>;
    tessera::VertexTypeBuilder<V>("poplin::LUBlock" + s)
        .field("a", &V::a)
        .field("lowerInverse", &V::lowerInverse)
        .field("upperInverse", &V::upperInverse)
        .field("n", &V::n)
        .add();
  }
  {
    using V = TriangularMask<T>;
    tessera::VertexTypeBuilder<V>("poplin::TriangularMask" + s)
        .field("in", &V::in)
        .field("out", &V::out)
        .field("n", &V::n)
        .field("matrixRows", &V::matrixRows)
        .field("firstRow", &V::firstRow)
        .field("lower", &V::lower)
        .field("unitDiagonal", &V::unitDiagonal)
        .add();
  }
  {
    using V = LUExtractLower<T>;
    tessera::VertexTypeBuilder<V>("poplin::LUExtractLower" + s)
        .field("in", &V::in)
        .field("out", &V::out)
        .field("inWidth", &V::inWidth)
        .field("outWidth", &V::outWidth)
        .field("firstRow", &V::firstRow)
        .add();
  }
  {
    using V = TriangularMaskInPlace<T>;
    tessera::VertexTypeBuilder<V>("poplin::TriangularMaskInPlace" + s)
        .field("data", &V::data)
        .field("n", &V::n)
        .field("matrixRows", &V::matrixRows)
        .field("firstRow", &V::firstRow)
        .field("lower", &V::lower)
        .field("unitDiagonal", &V::unitDiagonal)
        .add();
  }
}

} // namespace

void registerLinalgVertices() {
  tessera::VertexTypeBuilder<HouseholderVector>("poplin::experimental::HouseholderVector")
      .field("x", &HouseholderVector::x)
      .field("v", &HouseholderVector::v)
      .add();
  tessera::VertexTypeBuilder<HouseholderApply>("poplin::experimental::HouseholderApply")
      .field("rows", &HouseholderApply::rows)
      .field("v", &HouseholderApply::v)
      .add();
  registerTyped<float>("<float>");
  registerTyped<poplar::half>("<half>");
}

} // namespace tessera::codelets::poplin
