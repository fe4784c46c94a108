// Highway kernels of the Winograd F(2x2, 3x3) transforms (codelets/poplin/WinogradVertices.cpp),
// one row of tiles at a time; a "tile" is a 2x2 output block and its 4x4 input patch. The 16
// transformed values of tile t go to out[e · len + t], e = 4 · row + column of the 4x4 element.
// Every value is a fixed sequence of adds and subtracts, the same in every SIMD lane and in the
// scalar tail, so results never depend on the vector width or on where a row is cut.
#pragma once

#include <cstddef>

namespace tessera::codelets::poplin {

/// Bᵀ d B for tiles t < tiles of one tile row. The zero-padded input rows 2ty .. 2ty + 3 are
/// given with their even and odd columns apart: row r's column 2x is even[r · stride + x], its
/// column 2x + 1 odd[r · stride + x], for x ≤ tiles.
using WinogradInputRowFn = void (*)(std::size_t tiles, const float *even, const float *odd,
                                    std::size_t stride, float *out, std::size_t len);

/// Aᵀ m A for tiles t < tiles of one tile row, m[e] = in[e · len + t]: writes output columns
/// 0 .. width - 1 of row0 (outputs (0, 0) and (0, 1) of each tile, interleaved) and, unless
/// row1 is null, of row1 (the tiles' second output row). width ≤ 2 · tiles clips the last
/// tile's right column.
using WinogradOutputRowFn = void (*)(std::size_t tiles, const float *in, std::size_t len,
                                     float *row0, float *row1, std::size_t width);

/// A g Aᵀ for tiles t < tiles of one tile row of output gradients: g's rows are row0 and row1
/// (null: zeros, past an odd bottom edge), each `width` ≤ 2 · tiles long (columns past it read
/// zero).
using WinogradGradientRowFn = void (*)(std::size_t tiles, const float *row0, const float *row1,
                                       std::size_t width, float *out, std::size_t len);

/// The best Highway variants for this CPU, resolved once.
WinogradInputRowFn winogradInputRowKernel();
WinogradOutputRowFn winogradOutputRowKernel();
WinogradGradientRowFn winogradGradientRowKernel();

} // namespace tessera::codelets::poplin
