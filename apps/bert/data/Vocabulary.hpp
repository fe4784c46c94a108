// BERT's word-piece vocabulary: a SentencePiece unigram model trained on the corpus' training
// sentences, with BERT's special tokens at fixed ids (see the constants below). Training is
// deterministic (no input sampling or shuffling, a fixed thread count), so the same corpus and
// settings always give the same model bytes; the model is cached on disk under a name derived
// from the corpus content hash and the settings, and loaded from there when present.
#pragma once

#include "data/Corpus.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::bert {

/// Special token ids, the same in every vocabulary. [PAD] fills rows after their end, [UNK]
/// stands for characters outside the vocabulary, [CLS] starts and [SEP] ends each segment pair,
/// [MASK] replaces masked tokens. [PAD], [CLS] and [SEP] are SentencePiece control pieces and
/// [MASK] a user-defined one: encode() never produces any of them (not even for the text "[MASK]"),
/// decode() drops the control pieces and shows [MASK]. Every other id (kFirstOrdinaryId and up) is
/// an ordinary piece. (SentencePiece places pad/unk/bos/eos at the ids it is given and the
/// user-defined symbols right after them.)
inline constexpr std::uint32_t kPadId = 0;
inline constexpr std::uint32_t kUnkId = 1;
inline constexpr std::uint32_t kClsId = 2;
inline constexpr std::uint32_t kSepId = 3;
inline constexpr std::uint32_t kMaskId = 4;
inline constexpr std::uint32_t kFirstOrdinaryId = 5;

/// The vocabulary size the trainer uses unless told otherwise.
inline constexpr std::size_t kDefaultVocabularySize = 8192;

/// Where vocabularies are cached: $TESSERA_DATA_CACHE, else $XDG_CACHE_HOME/tessera/bert, else
/// ~/.cache/tessera/bert (falls back to the temp directory when $HOME is unset).
std::filesystem::path defaultVocabularyCacheDir();

class Vocabulary {
public:
  /// Loads the cached model for (corpus, vocabSize) from `cacheDir`, or trains it from
  /// corpus.training (SentencePiece unigram, at most 2 threads) and writes it there atomically
  /// (temp file + rename), creating the directory. Throws apps::cli_error when vocabSize does not
  /// suit the corpus (below 16, or more pieces than the corpus can yield), apps::dataset_error
  /// when a cached model is unreadable or corrupt (naming the file; delete it to retrain) or the
  /// cache cannot be written.
  static Vocabulary
  trainOrLoad(const Corpus &corpus, std::size_t vocabSize,
              const std::filesystem::path &cacheDir = defaultVocabularyCacheDir());
  /// Loads a model file written by trainOrLoad. Throws apps::dataset_error naming the file when
  /// it is missing, corrupt or truncated, or lacks the special tokens at their fixed ids.
  static Vocabulary load(const std::filesystem::path &modelFile);
  /// The file trainOrLoad uses for (corpus, vocabSize) in cacheDir:
  /// `<cacheDir>/foldoc-<hash of corpus content and training settings>-v<vocabSize>.model`.
  static std::filesystem::path cacheFile(const Corpus &corpus, std::size_t vocabSize,
                                         const std::filesystem::path &cacheDir);

  Vocabulary(Vocabulary &&) noexcept;
  Vocabulary &operator=(Vocabulary &&) noexcept;
  ~Vocabulary();

  /// Token ids of `text` (no [CLS]/[SEP] added): the model's most likely segmentation. A run of
  /// characters outside the vocabulary becomes one [UNK]. Thread-safe.
  std::vector<std::uint32_t> encode(std::string_view text) const;
  /// The text of `ids`; control tokens ([PAD], [CLS], [SEP]) are dropped. Throws app_error on an
  /// id ≥ size().
  std::string decode(const std::vector<std::uint32_t> &ids) const;
  /// The piece string of one id ("▁word", "[MASK]", ...).
  std::string piece(std::uint32_t id) const;
  /// Number of ids: every id is below size().
  std::size_t size() const;
  /// The model file this vocabulary was loaded from or trained into.
  const std::filesystem::path &file() const { return file_; }
  /// True when trainOrLoad found the model in its cache instead of training it.
  bool loadedFromCache() const { return loadedFromCache_; }
  /// The serialized SentencePiece model (what the file holds).
  const std::string &modelBytes() const { return modelBytes_; }

private:
  struct Impl;
  Vocabulary(std::unique_ptr<Impl> impl, std::filesystem::path file, std::string modelBytes,
             bool loadedFromCache);
  static Vocabulary fromBytes(std::string bytes, const std::filesystem::path &file,
                              bool loadedFromCache);

  std::unique_ptr<Impl> impl_;
  std::filesystem::path file_;
  std::string modelBytes_;
  bool loadedFromCache_ = false;
};

} // namespace tessera::bert
