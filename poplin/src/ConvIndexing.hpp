// Where each kernel element meets the input, per spatial dimension: the whole ConvParams
// transform chain (truncation, dilation, padding and flips of input and kernel; truncation,
// stride and padding of the output) reduced to one table lookup for the convolution codelets.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <poplin/ConvParams.hpp>

namespace poplin::detail {

/// The untransformed input index along `dim` that kernel element `k` (untransformed) reads
/// for final output position `o`, or -1 when it reads a zero (padding, dilation holes, kernel
/// padding/dilation, output padding).
long inputIndex(const ConvParams &params, unsigned dim, std::size_t o, std::size_t k);

/// table[k * (oEnd - oBegin) + (o - oBegin)] = inputIndex(params, dim, o, k) - base, or -1,
/// where [base, end) is the range of input indices the output range reads (returned in
/// `range`; empty when it reads none).
std::vector<int> inputIndexTable(const ConvParams &params, unsigned dim, std::size_t oBegin,
                                 std::size_t oEnd, std::pair<std::size_t, std::size_t> &range);

} // namespace poplin::detail
