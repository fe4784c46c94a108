// Random numbers on the device: uniform, log-uniform, normal, truncated normal, Bernoulli,
// dropout and shaped dropout.
//
// Every generator adds one compute set to `prog` (one vertex per tile; seedless calls add a
// second, tiny one that advances the seed state). Its result is a new tensor laid out like
// `reference` (same shape, same tile mapping); each tile generates the elements mapped to it.
//
// Reproducibility. Tessera uses a counter-based generator (Philox-4x32-10): the number for an
// element is a pure function of the seed, `seedModifier`, the generator function (uniform,
// normal, …, so different functions never share numbers) and the element's row-major index in
// `reference`. The same seed therefore gives bit-identical results whatever the tile mapping of
// `reference` and whatever the host thread count; calling dropout again with the same seed and
// modifier regenerates the same mask (as a backward pass needs).
//
// Seeds. `seed` is a device tensor of 2 UNSIGNED_INT (as in PopLibs), read when the program runs.
// When `seed` is nullptr, `seedModifier` is ignored (as in PopLibs) and the graph's seed state is
// used instead: a 2 x UNSIGNED_INT variable named "poprand/seedState" on tile 0, created on
// first use with a fixed default value.
// `setSeed` overwrites it (from a master seed and modifier), and every seedless call advances it
// after generating, so successive seedless calls (and repeated runs of one program) differ, and
// re-running setSeed restarts the same sequence.
#pragma once

#include <cmath>
#include <cstdint>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poprand {

/// Uniform numbers in [minVal, maxVal]. outType FLOAT or HALF; or INT, where minVal and maxVal
/// must be integers in the int range and every integer of [minVal, maxVal] is drawn (exactly
/// uniformly when the count is a power of two, else with a bias below count / 2^32).
/// Throws poputil::poplibs_error if minVal > maxVal, the type is unsupported or the seed is
/// not a [2] UNSIGNED_INT tensor.
poplar::Tensor uniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                       const poplar::Tensor &reference, const poplar::Type &outType, double minVal,
                       double maxVal, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

/// Log-uniform numbers in [minVal, maxVal] (1 <= minVal < maxVal): their logarithm is uniform.
/// outType FLOAT, HALF or INT; the bounds are first squeezed inward to values outType represents
/// (for HALF, [2049, 4098] becomes [2050, 4096]), and results are clamped to them. The
/// distribution does not depend on `base` (> 0, != 1), accepted for PopLibs compatibility.
poplar::Tensor logUniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                          const poplar::Tensor &reference, const poplar::Type &outType,
                          double minVal, double maxVal, poplar::program::Sequence &prog,
                          double base = M_E, const poplar::DebugContext &debugContext = {});

/// 1 with probability `prob` (in [0, 1]), else 0. outType FLOAT, HALF or INT.
poplar::Tensor bernoulli(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                         const poplar::Tensor &reference, const poplar::Type &outType, double prob,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {});

/// Normal numbers with the given mean and standard deviation (>= 0). outType FLOAT or HALF.
poplar::Tensor normal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                      const poplar::Tensor &reference, const poplar::Type &outType, double mean,
                      double stdDev, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});

/// Normal numbers truncated symmetrically at mean - alpha * stdDev and mean + alpha * stdDev
/// (alpha > 0), by rejection with a bounded number of tries (see RandomReference.hpp: after 32
/// rejected candidates, probability < 1e-6 for alpha >= 0.5, the element is uniform inside the
/// bounds). outType FLOAT or HALF.
poplar::Tensor truncatedNormal(poplar::Graph &graph, const poplar::Tensor *seed,
                               uint32_t seedModifier, const poplar::Tensor &reference,
                               const poplar::Type &outType, double mean, double stdDev,
                               double alpha, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {});

/// Dropout: each element of `input` is kept with probability keepProbability (in (0, 1]) and
/// multiplied by `scale`, else set to 0. `input` (FLOAT or HALF) must have `reference`'s shape;
/// the result has input's type and reference's layout, so the mask depends only on the seed,
/// modifier and element index.
poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference,
                       double keepProbability, double scale, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

/// As dropout; the result is laid out like `reference` if outputClonesRef, else like `input`.
/// The mask is the same either way (it depends on element indices, not on the layout).
poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference,
                       double keepProbability, double scale, bool outputClonesRef,
                       poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

/// Shaped dropout: the keep/drop mask is drawn on `reference`'s shape and layout (exactly the
/// mask dropout would draw for a tensor of that shape) and broadcast NumPy-style to `input`, so
/// e.g. a [rows, 1] reference keeps or drops whole rows. The result is laid out like `input` and
/// is input * scale where the mask keeps, else 0. Throws poputil::poplibs_error if `reference`
/// does not broadcast to `input`.
poplar::Tensor shapedDropout(poplar::Graph &graph, const poplar::Tensor *seed,
                             uint32_t seedModifier, const poplar::Tensor &input,
                             const poplar::Tensor &reference, double keepProbability, double scale,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {});

/// Sets the graph's seed state (used when `seed` is nullptr) from `masterSeed`, a [2]
/// UNSIGNED_INT device tensor, and `seedModifier`, when `prog` runs.
void setSeed(poplar::Graph &graph, const poplar::Tensor &masterSeed, uint32_t seedModifier,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace poprand
