// A SentencePiece unigram model read straight from its serialized bytes, and the segmentation
// it defines: the most probable split of the text into pieces (Viterbi over piece scores). This
// is what SentencePieceProcessor does for models trained with the identity normalizer, without
// linking SentencePiece (see SentencePieceTraining.hpp for why).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::bert {

/// sentencepiece::ModelProto::SentencePiece::Type.
enum class PieceType : std::uint8_t {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6
};

struct UnigramPiece {
  std::string text; // with U+2581 "▁" standing for a space
  float score = 0.0f;
  PieceType type = PieceType::Normal;
};

class UnigramModel {
public:
  /// Parses a serialized sentencepiece ModelProto. Throws std::invalid_argument describing the
  /// damage when the bytes are not a well-formed model.
  static UnigramModel parse(std::string_view modelBytes);
  /// `modelBytes` without trainer_spec.input and .model_prefix (temporary paths), so equal
  /// training gives equal bytes. Throws std::invalid_argument on malformed bytes.
  static std::string withoutTrainingInput(std::string_view modelBytes);

  const std::vector<UnigramPiece> &pieces() const { return pieces_; }
  /// normalizer_spec.name ("identity" for our models).
  const std::string &normalizerName() const { return normalizerName_; }

  /// Whitespace runs become one "▁", a "▁" is prefixed, then the best segmentation into Normal
  /// pieces; characters no piece covers become one unknown id per run.
  std::vector<std::uint32_t> encode(std::string_view text) const;
  /// Concatenates pieces, "▁" → space, drops the leading space and Control pieces; unknown ids
  /// read " ⁇ ". Ids must be below pieces().size().
  std::string decode(std::span<const std::uint32_t> ids) const;

private:
  void buildTrie();

  std::vector<UnigramPiece> pieces_;
  std::string normalizerName_;
  std::uint32_t unknownId_ = 0;
  float unknownScore_ = 0.0f;
  // Byte trie over Normal pieces: edges keyed by (node << 8 | byte); a node's piece id or -1.
  std::unordered_map<std::uint64_t, std::uint32_t> edges_;
  std::vector<std::int32_t> nodePiece_;
};

} // namespace tessera::bert
