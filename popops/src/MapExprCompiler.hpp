// Compiling a popops::expr tree into the register bytecode of popops::MapExpr<T> vertices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popops/Expr.hpp>

namespace popops::detail {

/// One tensor the expression reads, in the vertex's input order.
struct MapInputUse {
  unsigned tensorIndex; ///< Position in the tensor list given to map (0-based).
  bool isScalar;        ///< One element broadcast to every output element.
  unsigned field;       ///< 0 = in4 (32-bit), 1 = in2 (HALF), 2 = in1 (BOOL).
  unsigned fieldIndex;  ///< Position within that field's list.
  /// The descriptor's InputField: `field`, or In2Short / In2UnsignedShort for 16-bit integers.
  unsigned conversion = 0;
};

struct CompiledMapExpr {
  poplar::Type outType;
  std::vector<MapInputUse> inputs;
  std::vector<std::uint32_t> code;   ///< The vertex's `code` field.
  std::vector<std::uint32_t> consts; ///< The vertex's `consts` field.
  unsigned numBodyInstructions = 0;
};

/// Placeholder indices (1-based) that `e` uses, sorted and unique.
std::vector<unsigned> placeholdersOf(const expr::Expr &e);

/// Type-checks `e` against the tensors `ts` and compiles it. Inputs whose tensor has one
/// element are read once per vertex (scalars). Throws poputil::poplibs_error naming the
/// operation, the types and the expression for any unsupported combination.
/// `tensorNames[i]` names ts[i] in messages.
CompiledMapExpr compileMapExpr(const expr::Expr &e, const std::vector<poplar::Tensor> &ts,
                               const std::vector<std::string> &tensorNames,
                               const std::string &context);

} // namespace popops::detail
