// Registration of poprand's built-in vertex types (called by poprand::addCodelets).
#pragma once

namespace tessera::codelets::poprand {

/// Registers every poprand vertex type with the SDK's registry. Idempotent and thread-safe.
void registerPoprandCodelets();

// One function per vertex family (each defined in its own file).
void registerRandomVertices();
void registerSeedStateVertices();
void registerMaskVertices();

} // namespace tessera::codelets::poprand
