// Runs SentencePiece's trainer in this process without letting it meet protobuf.
//
// Debian's libsentencepiece embeds its own protobuf-lite 3.14 and exports those symbols;
// apps_common links the system libprotobuf (3.21) for checkpoints. Linked together, SentencePiece's
// protobuf calls bind to the wrong library and abort with a version mismatch. So bert_data
// references no SentencePiece symbol (the linker's --as-needed then drops the library from the
// executable) and the trainer is opened at run time with dlopen(RTLD_LOCAL | RTLD_DEEPBIND), which
// binds SentencePiece to its own protobuf. Encoding does not need SentencePiece at all: Vocabulary
// reads the model and segments text itself (UnigramModel.hpp).
#pragma once

#include <filesystem>
#include <string>

namespace tessera::bert {

/// Trains a SentencePiece model on `inputFile` (one sentence per line) with SentencePiece's
/// command-line style `arguments` (no --input, --model_prefix) and returns the serialized model.
/// Serialised: one training at a time. Throws apps::app_error when the library cannot be loaded
/// (naming it and the package to install) and apps::cli_error carrying SentencePiece's message
/// when training fails.
std::string trainSentencePieceModel(const std::filesystem::path &inputFile,
                                    const std::string &arguments);

} // namespace tessera::bert
