// Registration of popops' built-in vertex types (called by popops::addCodelets).
#pragma once

namespace tessera::codelets::popops {

/// Registers every popops vertex type with the SDK's registry. Idempotent and thread-safe.
void registerPopopsCodelets();

// One function per vertex family (each defined in its own file).
void registerCastQuarterVertices();
void registerFillVertices();
void registerIotaVertices();
void registerMapExprVertices();
void registerReduceVertices();
void registerSliceVertices();
void registerSortVertices();
void registerTopKVertices();
void registerEncodingVertices();
void registerCastVertices();
void registerSplineVertices();
void registerNaNVertices();
void registerLoopVertices();
void registerScalarInRowsVertices();
void registerScatterVertices();
void registerSequenceSliceVertices();
void registerCircBufVertices();
void registerGatherStatisticsVertices();
void registerNormaliseImageVertices();
void registerRearrangeVertices();
void registerWideIntegerVertices();

} // namespace tessera::codelets::popops
