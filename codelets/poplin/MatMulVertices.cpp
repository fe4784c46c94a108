// poplin::MatMulBlock<In,Out,Accumulate>: one tile's block product c[m×n] = a[m×k] · b[k×n]
// (row-major), or c += a · b when Accumulate (one step of an inner dimension processed in
// serial steps), computed in fp32 by the Highway GEMM kernel.
//
// An operand may arrive transposed (`aTransposed`: a holds the block as [k][m]; `bTransposed`:
// b as [n][k]) when it is a transposed view of a tensor whose rows are contiguous (a
// convolution's weights in the input gradient, its activations in the weight gradient): the
// exchange then copies whole rows. The kernel reads a transposed fp32 a in place (column-major
// A); other transposed operands are transposed into host scratch (m·k or k·n copies against
// m·n·k multiply-adds) before the usual kernel runs.
//
// Workers split the block into column ranges of kGemmColumnUnit columns (some workers may get
// none), or into ranges of 8 rows when the block is only one column unit wide. Every element is one
// fixed-order FMA chain, so the split never changes the result. HALF operands are widened to fp32
// into per-thread host scratch (not tile memory) before the kernel runs; a HALF output is rounded
// once at the end.
#include <algorithm>
#include <type_traits>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/AmpRate.hpp"
#include "poplin/PoplinCodelets.hpp"
#include "poplin/Transpose.hpp"
#include "poplin/kernels/GemmKernels.hpp"

namespace tessera::codelets::poplin {
namespace {

/// The kernel pointer is taken once, when the types register (never looked up per call).
GemmFloatFn gGemmFloat = nullptr, gGemmTransposedA = nullptr;

constexpr std::size_t kRowUnit = 8;

struct WorkerRange {
  std::size_t rowBegin, rowEnd, colBegin, colEnd;
};

WorkerRange workerRange(std::size_t m, std::size_t n, unsigned worker, unsigned workers) {
  const std::size_t colUnits = (n + kGemmColumnUnit - 1) / kGemmColumnUnit;
  // Workers of a tile run one after another on one host thread, so an even split buys nothing
  // here; whole columns keep every packed panel of b in use for all m rows.
  if (colUnits >= 2) {
    const std::size_t b = colUnits * worker / workers, e = colUnits * (worker + 1) / workers;
    return {0, m, std::min(n, b * kGemmColumnUnit), std::min(n, e * kGemmColumnUnit)};
  }
  const std::size_t rowUnits = (m + kRowUnit - 1) / kRowUnit;
  const std::size_t b = rowUnits * worker / workers, e = rowUnits * (worker + 1) / workers;
  return {std::min(m, b * kRowUnit), std::min(m, e * kRowUnit), 0, n};
}

/// Per host thread packing/conversion scratch (workers of one tile run on one thread).
struct Scratch {
  std::vector<float> packed, a, b, c;
};
Scratch &scratch() {
  thread_local Scratch s;
  return s;
}

template <class In, class Out, bool Accumulate> class MatMulBlock : public poplar::MultiVertex {
  static_assert(!Accumulate || std::is_same_v<Out, float>, "accumulation is into fp32 partials");

public:
  poplar::Input<poplar::Vector<In>> a;
  poplar::Input<poplar::Vector<In>> b;
  std::conditional_t<Accumulate, poplar::InOut<poplar::Vector<Out>>,
                     poplar::Output<poplar::Vector<Out>>>
      c;
  unsigned m;
  unsigned n;
  unsigned k;
  /// Nonzero: a holds [k][m] (b holds [n][k]), the transpose of the operand's block.
  unsigned aTransposed;
  unsigned bTransposed;

  void compute(unsigned workerId) {
    const WorkerRange w = workerRange(m, n, workerId, numWorkers());
    const std::size_t rows = w.rowEnd - w.rowBegin, cols = w.colEnd - w.colBegin;
    if (rows == 0 || cols == 0)
      return;
    Scratch &s = scratch();
    s.packed.resize(gemmScratchFloats(k));
    const float *fa;
    const float *fb;
    std::size_t lda = k, ldb = n;
    GemmFloatFn gemm = gGemmFloat;
    if (aTransposed) {
      if constexpr (std::is_same_v<In, float>) {
        // Read in place: the kernel takes A column-major.
        fa = a.data() + w.rowBegin;
        lda = m;
        gemm = gGemmTransposedA;
      } else {
        s.a.resize(rows * k);
        transpose([&](std::size_t p) { return a.data() + p * m + w.rowBegin; }, k, rows, s.a.data(),
                  k);
        fa = s.a.data();
      }
    } else if constexpr (std::is_same_v<In, float>) {
      fa = a.data() + w.rowBegin * k;
    } else {
      // Inputs are widened to fp32 while being gathered (FLOAT partials).
      s.a.resize(rows * k);
      for (std::size_t i = 0; i < rows * k; ++i)
        s.a[i] = static_cast<float>(a[w.rowBegin * k + i]);
      fa = s.a.data();
    }
    if (bTransposed) {
      s.b.resize(k * cols);
      transpose([&](std::size_t j) { return b.data() + (w.colBegin + j) * k; }, cols, k, s.b.data(),
                cols);
      fb = s.b.data();
      ldb = cols;
    } else if constexpr (std::is_same_v<In, float>) {
      fb = b.data() + w.colBegin;
    } else {
      s.b.resize(k * cols);
      for (std::size_t p = 0; p < k; ++p)
        for (std::size_t j = 0; j < cols; ++j)
          s.b[p * cols + j] = static_cast<float>(b[p * n + w.colBegin + j]);
      fb = s.b.data();
      ldb = cols;
    }
    if constexpr (std::is_same_v<Out, float>) {
      gemm(rows, cols, k, fa, lda, fb, ldb, c.data() + w.rowBegin * n + w.colBegin, n, Accumulate,
           s.packed.data());
    } else {
      s.c.resize(rows * cols);
      gemm(rows, cols, k, fa, lda, fb, ldb, s.c.data(), cols, false, s.packed.data());
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
          c[(w.rowBegin + i) * n + w.colBegin + j] = static_cast<Out>(s.c[i * cols + j]);
    }
  }

  /// One worker's thread cycles: its share of the products at the AMP rate (AmpRate.hpp), of
  /// packing b and of any transposes, two elements a cycle.
  std::uint64_t cycleEstimate() const {
    const std::uint64_t workers = 6;
    // Each worker transposes its rows of a (all of them; fp32 a is read in place) or its
    // columns of b.
    const bool transposesA = aTransposed && !std::is_same_v<In, float>;
    const std::uint64_t transposes = (transposesA ? std::uint64_t(m) * k : 0) +
                                     (bTransposed ? std::uint64_t(k) * n / workers : 0);
    return 50 + ampWorkerCycles<In>(std::uint64_t(m) * n * k) +
           (std::uint64_t(k) * n / workers + transposes) / 2;
  }
};

template <class In, class Out, bool Accumulate> void registerBlock(const char *name) {
  using V = MatMulBlock<In, Out, Accumulate>;
  tessera::VertexTypeBuilder<V>(name)
      .field("a", &V::a)
      .field("b", &V::b)
      .field("c", &V::c)
      .field("m", &V::m)
      .field("n", &V::n)
      .field("k", &V::k)
      .field("aTransposed", &V::aTransposed)
      .field("bTransposed", &V::bTransposed)
      .add();
}

} // namespace

void registerMatMulVertices() {
  gGemmFloat = gemmFloatKernel();
  gGemmTransposedA = gemmTransposedAKernel();
  registerBlock<float, float, false>("poplin::MatMulBlock<float,float,false>");
  registerBlock<poplar::half, float, false>("poplin::MatMulBlock<half,float,false>");
  registerBlock<poplar::half, poplar::half, false>("poplin::MatMulBlock<half,half,false>");
  registerBlock<float, poplar::half, false>("poplin::MatMulBlock<float,half,false>");
  registerBlock<float, float, true>("poplin::MatMulBlock<float,float,true>");
  registerBlock<poplar::half, float, true>("poplin::MatMulBlock<half,float,true>");
}

} // namespace tessera::codelets::poplin
