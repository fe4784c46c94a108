// Cycle estimates of popops' vertices, as Tessera's cost model (the engine's profile and
// Engine::estimateProgramCycles) charges them. PopLibs keeps these functions for its own
// planners and marks them internal; Tessera answers the same questions for its own vertices:
// element-wise maps and casts run as popops::MapExpr<T> (one run) or MapExpr2D<T> (many
// runs) — casts with an 8- or 16-bit integer side as popops::Cast1D<Src,Dst>, one per run — fills
// as popops::Fill<T> or Fill2d<T>, slices and updates as popops::MultiSlice<T>, MultiUpdate<T> and
// MultiUpdateAdd/Max/Mul<T>. Every estimate is in worker cycles, what the vertex's cycleEstimate()
// gives; a tile running one of them alone spends the target's worker count times that (a
// MultiVertex occupies every worker; a plain vertex holds one of the barrel-scheduled slots).
#pragma once

#include <cstdint>
#include <vector>

#include <poplar/PerfEstimateFunc.hpp>
#include <poplar/Target.hpp>
#include <poplar/Type.hpp>
#include <poplar/VectorLayout.hpp>
#include <popops/ExprOp.hpp>
#include <popops/OperationDef.hpp>

namespace popops {

// Liable to change with the vertices they describe.
namespace internal {

/// The fixed cost of one element-wise (MapExpr) vertex, whatever its size. Tessera has no
/// scaled pointers, so `isScaledPtr64Type` changes nothing.
std::uint64_t basicOpSupervisorOverhead(const bool isScaledPtr64Type = false);

/// Cycles to process `numElems` elements `vectorSize` at a time at `cyclesPerVector` each:
/// ceil(numElems / vectorSize) · cyclesPerVector (a vectorSize of 0 counts as 1).
std::uint64_t basicOpLoopCycles(const unsigned numElems, const unsigned vectorSize,
                                const unsigned cyclesPerVector);

/// basicOpLoopCycles with the target's vector width for `type` (1 unless `vectorize`) and
/// `overheadPerLoop` added to every vector's cycles.
std::uint64_t binaryOpInnerLoopCycles(const poplar::Target &target, const poplar::Type &type,
                                      const unsigned cyclesPerVector, const bool vectorize,
                                      const unsigned numElems, const std::uint64_t overheadPerLoop);

/// The vertex a binary operation `op` in place on one run of `numElems` elements of `type`
/// runs as (popops::mapInPlace, addInPlace, …).
std::uint64_t getBinaryOp1DInPlaceEstimate(const poplar::Target &target, const poplar::Type &type,
                                           const popops::expr::BinaryOpType op,
                                           const unsigned numElems);

/// popops::dynamicSlice of `numSubElements` rows of `regionSize` elements each (a MultiSlice
/// vertex with one offset).
std::uint64_t getDynamicSlice1DEstimate(const poplar::Target &target, const poplar::Type &type,
                                        const unsigned regionSize, const unsigned numSubElements);

/// The target parameters a multi-slice estimate depends on.
struct MultiSliceTargetParameters {
  MultiSliceTargetParameters(const poplar::Target &target, const poplar::Type &type)
      : atomicWriteSize(target.getAtomicStoreGranularity()),
        dataPathWidth(target.getDataPathWidth()), bytesPerElem(target.getTypeSize(type)),
        numWorkerContexts(target.getNumWorkerContexts()) {}
  unsigned atomicWriteSize;
  unsigned dataPathWidth;
  unsigned bytesPerElem;
  unsigned numWorkerContexts;
};

/// A multiSlice vertex (or, with `isUpdate`, a multiUpdate vertex) moving `numOffsets` slices
/// of `elemsPerSlice` elements. Tessera's vertex visits every offset the same way, so the
/// offsets in range, their grouping and order, and region splitting change nothing.
std::uint64_t getMultiSliceCycleEstimate(const MultiSliceTargetParameters &targetParams,
                                         const unsigned elemsPerSlice, const unsigned numOffsets,
                                         const unsigned numOffsetsInRangePerWorker,
                                         const unsigned offsetsPerDictEntry,
                                         const bool isUpdate = false,
                                         const bool indicesAreSorted = false,
                                         const bool splitSingleRegion = false);

/// The target parameters a multi-update-op estimate depends on.
struct MultiUpdateOpTargetParameters {
  MultiUpdateOpTargetParameters(const poplar::Target &target, const poplar::Type &type)
      : atomicWriteSize(target.getAtomicStoreGranularity()),
        numWorkerContexts(target.getNumWorkerContexts()), bytesPerElem(target.getTypeSize(type)) {}
  unsigned atomicWriteSize;
  unsigned numWorkerContexts;
  unsigned bytesPerElem;
};

/// A multiUpdateAdd (`op` ADD), multiUpdateMax (MAX) or multiUpdateMul (MUL) vertex combining
/// `numOffsets` slices of `elemsPerSlice` elements into the base; the remaining arguments
/// change nothing for Tessera's vertices (and other operations, which its multi-updates do not
/// offer, are priced the same).
std::uint64_t getMultiUpdateOpCycleEstimate(const MultiUpdateOpTargetParameters &targetParams,
                                            bool subWordWritesRequired,
                                            const unsigned elemsPerSlice, const unsigned numOffsets,
                                            const unsigned numOffsetsInRangePerWorker,
                                            const unsigned offsetsPerDictEntry, const Operation op,
                                            const bool scaled,
                                            const bool scaleHigherPrecisionThanData = false,
                                            const bool indicesAreSorted = false);

/// The target parameters a cast estimate depends on.
struct CastTargetParameters {
  CastTargetParameters(const poplar::Target &target, const poplar::Type &fromType,
                       const poplar::Type &toType)
      : numWorkerContexts(target.getNumWorkerContexts()), dataPathWidth(target.getDataPathWidth()),
        fromTypeSize(target.getTypeSize(fromType)), toTypeSize(target.getTypeSize(toType)) {}
  unsigned numWorkerContexts;
  unsigned dataPathWidth;
  unsigned fromTypeSize;
  unsigned toTypeSize;
};

/// A cast vertex over several runs, `elemCounts` elements each (MapExpr2D).
std::uint64_t getCast2DCycleEstimate(const CastTargetParameters &targetParams,
                                     const poplar::Type &fromType, const poplar::Type &toType,
                                     std::vector<unsigned> &elemCounts);

/// A cast vertex over one run of `numElems` elements. Tessera has one vertex for both the
/// single-worker and the multi-worker case, so both estimates agree.
std::uint64_t getCast1DSingleWorkerCycleEstimate(const CastTargetParameters &targetParams,
                                                 const poplar::Type &fromType,
                                                 const poplar::Type &toType,
                                                 const unsigned numElems);
std::uint64_t getCast1DCycleEstimate(const CastTargetParameters &targetParams,
                                     const poplar::Type &fromType, const poplar::Type &toType,
                                     const unsigned numElems);

/// The target parameters a fill estimate depends on.
struct FillTargetParameters {
  FillTargetParameters(const poplar::Target &target) : dataPathWidth(target.getDataPathWidth()) {}
  unsigned dataPathWidth;
};

/// popops::Fill<T> over one run of `numElems` elements.
std::uint64_t getFill1DCycleEstimate(const FillTargetParameters &targetParams,
                                     const poplar::Type &type, const unsigned numElems);

/// popops::Fill2d<T> over runs of `numElems` elements each.
std::uint64_t getFill2DCycleEstimate(const FillTargetParameters &targetParams,
                                     const poplar::Type &type,
                                     const std::vector<unsigned> &numElems);

/// Which scaled-arithmetic update (popops/ScaledAdd.hpp) an estimate is for: A + b·B
/// (scaledAddTo), A − b·B (scaledSubtractFrom), a·A + b·B and a·A − b·B (the two-scale forms).
enum class ScaledArithmeticOp { ADD, SUBTRACT, AXPLUSBY, AXMINUSBY };

/// The target parameters a scaled-arithmetic estimate depends on.
struct ScaledArithmeticTargetParameters {
  ScaledArithmeticTargetParameters(const poplar::Target &target, const poplar::Type &dataType)
      : numWorkerContexts(target.getNumWorkerContexts()),
        vectorWidth(target.getVectorWidth(dataType)) {}
  unsigned numWorkerContexts;
  unsigned vectorWidth;
};

/// The vertex a scaled-arithmetic update `operation` of one run of `numElems` elements of
/// `dataType` (A) with B of `dataBType` runs as: the fused map popops/ScaledAdd.hpp builds, with
/// constant scales when `isConstant` and one-element scale tensors of `dataType` otherwise.
/// `memConstrained` and the layouts change nothing (Tessera has one vertex for every layout).
std::uint64_t getScaledArithmeticSupervisorCycleEstimate(
    const ScaledArithmeticTargetParameters &targetParams, const poplar::Type &dataType,
    const poplar::Type &dataBType, const bool isConstant, const bool memConstrained,
    const ScaledArithmeticOp operation, const poplar::layout::Vector &aLayout,
    const poplar::layout::Vector &bLayout, const unsigned numElems);

/// A binary operation `op` between one run of `dataSize` elements of `inType` and a scalar
/// (popops::map with a one-element operand), with one flop per element.
poplar::VertexPerfEstimate broadcastArithmetic1DCycleEstimate(const poplar::Target &target,
                                                              popops::expr::BinaryOpType op,
                                                              const poplar::Type &inType,
                                                              const poplar::Type &outType,
                                                              bool inPlace, std::size_t dataSize);

/// The same over several runs of `data` elements each (MapExpr2D). `uniformScalar` changes
/// nothing: every run reads the scalar the same way.
poplar::VertexPerfEstimate broadcastArithmeticCycleEstimate(const poplar::Target &target,
                                                            popops::expr::BinaryOpType op,
                                                            const poplar::Type &inType,
                                                            const poplar::Type &outType,
                                                            bool inPlace, bool uniformScalar,
                                                            const std::vector<std::size_t> &data);

} // namespace internal
} // namespace popops
