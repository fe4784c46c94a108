// Registration of popfloat's built-in vertex types (called by popfloat::experimental::addCodelets).
#pragma once

namespace tessera::codelets::popfloat {

/// Registers every popfloat vertex type with the SDK's registry. Idempotent and thread-safe.
void registerPopfloatCodelets();

// One function per vertex family (each defined in its own file).
void registerGfloatCastVertices();
void registerGfloatParamsVertices();

} // namespace tessera::codelets::popfloat
