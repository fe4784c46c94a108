// SIMD kernels: Philox-4x32-10 blocks for a run of consecutive element indices, and float
// dropout straight from them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "poprand/kernels/RandomReference.hpp"

namespace tessera::codelets::poprand {

/// Blocks for indices first .. first+n-1 of stream `key`; word w of block i goes to words[w][i].
/// The caller guarantees the low 32 bits of the index do not wrap inside the run.
using PhiloxBlocksFn = void (*)(const StreamKey &key, std::uint64_t first, std::size_t n,
                                std::uint32_t *w0, std::uint32_t *w1, std::uint32_t *w2,
                                std::uint32_t *w3);
/// The best Highway variant for this CPU, resolved once. Bit-identical to
/// philoxBlocksReference (RandomReference.hpp).
PhiloxBlocksFn philoxBlocksKernel();

/// out[k] = in[k] · scale where element first + k fires (its dropoutWord below `threshold`),
/// else 0, for k < n: the blocks made four elements at a time, in vectors, and applied as they
/// come (no word buffer in between). Bit-identical to the reference expression in
/// RandomReference.hpp; any `first` and `n`; `in` and `out` must not overlap.
using DropoutFloatFn = void (*)(const StreamKey &key, std::uint64_t first, std::size_t n,
                                const float *in, float *out, unsigned long long threshold,
                                float scale);
DropoutFloatFn dropoutFloatKernel();

} // namespace tessera::codelets::poprand
