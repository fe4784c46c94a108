// Registration of popnn's built-in vertex types (called by popnn::addCodelets).
#pragma once

namespace tessera::codelets::popnn {

/// Registers every popnn vertex type with the SDK's registry. Idempotent and thread-safe.
void registerPopnnCodelets();

// One function per vertex family (each defined in its own file).
void registerColumnVertices();
void registerCTCInferenceVertices();
void registerCTCLossVertices();
void registerLossVertices();
void registerNonLinearityVertices();
void registerPoolingVertices();
void registerROIAlignVertices();
void registerRowAffineVertices();
void registerRowSumsVertices();
void registerSoftmaxVertices();

} // namespace tessera::codelets::popnn
