// Registration of poplin's built-in vertex types (called by poplin::addCodelets).
#pragma once

namespace tessera::codelets::poplin {

/// Registers every poplin vertex type with the SDK's registry. Idempotent and thread-safe.
void registerPoplinCodelets();

// One function per vertex family (each defined in its own file).
void registerMatMulVertices();     // MatMulVertices.cpp
void registerPartialsVertices();   // PartialsVertices.cpp
void registerConvVertices();       // ConvVertices.cpp
void registerStridedRowVertices(); // StridedRowVertices.cpp
void registerWinogradVertices();   // WinogradVertices.cpp
void registerLoweredVertices();    // LoweredVertices.cpp
void registerLinalgVertices();     // LinalgVertices.cpp

} // namespace tessera::codelets::poplin
