// popops::map over 64-bit integer tensors (LONGLONG, UNSIGNED_LONGLONG): one binary operation
// of two operands (tensors or constants), run as popops::BinaryOp64<OP,T> vertices, one per
// contiguous run of the output on each tile. The fused-expression bytecode works in 32-bit lanes,
// so wider integers take this path, as PopLibs offers them for single binary operations only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Expr.hpp>

namespace popops::detail {

/// Whether any of `ts` holds 64-bit integers (map then takes the path below).
bool hasWideIntegerTensor(const std::vector<poplar::Tensor> &ts);

/// The result of `e` over `ts`: into `out` when given, into ts[0] when `inPlace`, else into a new
/// tensor. Throws poputil::poplibs_error naming the expression or tensor when `e` is not one
/// supported binary operation of 64-bit operands of one type.
poplar::Tensor mapWideInteger(poplar::Graph &graph, const expr::Expr &e,
                              const std::vector<poplar::Tensor> &ts,
                              std::optional<poplar::Tensor> out, bool inPlace,
                              poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                              const std::string &context);

} // namespace popops::detail
