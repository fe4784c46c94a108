// Scaled accumulation: A += k·B (and variants), the update step of every optimiser.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

// Every function updates `A` in place in one fused compute set. `B` must have `A`'s shape; a
// `B` of another element type is cast to A's type first (as in PopLibs). A tensor scale must
// hold one element (read on the device when the program runs; cast to A's type). Options, both
// accepted for PopLibs compatibility and neither changing the result (HALF is always computed
// in float): "optimizeForSpeed" ("true"/"false", default false) and
// "scaleFloatToHalfTolerance" (a number >= 0, default 1e-6). Shape mismatches throw
// poputil::poplibs_error naming both tensors.

/// How scaledAddTo(A, scaleA, B, scaleB) uses scaleA: DEFAULT A = scaleA·A + scaleB·B;
/// X_MINUS_AX_PLUS_BY A = A - scaleA·A + scaleB·B.
enum class ScaledAddSpecialisation { DEFAULT, X_MINUS_AX_PLUS_BY };

/// A += scaleB · B
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, poplar::Tensor scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});
/// A = scaleA · A + scaleB · B
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                 float scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                 poplar::Tensor scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});

/// A = scaleA' · A + scaleB · B with scaleA' chosen by `speciality` (see ScaledAddSpecialisation).
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                 poplar::Tensor scaleB, poplar::program::Sequence &prog,
                 const ScaledAddSpecialisation speciality,
                 const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                 float scaleB, poplar::program::Sequence &prog,
                 const ScaledAddSpecialisation speciality,
                 const poplar::DebugContext &debugContext = {},
                 const poplar::OptionFlags &options = {});

/// A -= scaleB · B
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B,
                        poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});
/// A = scaleA · A - scaleB · B
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                        float scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});
void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA,
                        poplar::Tensor B, poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});

} // namespace popops
