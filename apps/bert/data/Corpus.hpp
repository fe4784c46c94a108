// The English text BERT pre-trains on: the Free On-line Dictionary of Computing (FOLDOC), as the
// Debian package dict-foldoc installs it. Each dictionary entry becomes one Document, its body
// cleaned of dictionary markup and split into sentences. A fixed, title-hashed share of the
// entries is held out for evaluation, so an entry is on the same side in every run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::bert {

/// Where dict-foldoc installs the dictionary (a dictzip file, readable as gzip).
inline constexpr const char *kFoldocDictPath = "/usr/share/dictd/foldoc.dict.dz";

/// One dictionary entry: its headword and its body as sentences (markup removed, whitespace
/// collapsed, no leading or trailing spaces).
struct Document {
  std::string title;
  std::vector<std::string> sentences;
  bool operator==(const Document &) const = default;
};

struct Corpus {
  std::vector<Document> training;
  std::vector<Document> heldOut;

  /// 16 hex digits identifying the text of both splits (titles and sentences, in order). Caches
  /// derived from the corpus (the vocabulary) are keyed by it.
  std::string contentHash() const;
  std::size_t numSentences() const;
};

/// 64-bit FNV-1a of `bytes`, continuing from `state`: a stable hash (same on every platform and
/// compiler) for cache keys and deterministic splits.
std::uint64_t stableHash(std::string_view bytes, std::uint64_t state = 0xcbf29ce484222325ULL);

/// Parses dictionary text in FOLDOC's layout: an entry starts with a headword line at column 0
/// after a blank line (further column-0 lines right below it are aliases), then body lines
/// indented by spaces, paragraphs separated by blank lines. Markup is removed: `{cross
/// reference}` keeps its text (without a trailing "(url)"), a leading `<category>` list, source
/// references in brackets, pronunciations `/like'this/`, `__emphasis__` underscores and the
/// trailing `(YYYY-MM-DD)` date line are dropped, as are paragraphs made only of cross references
/// (redirects, "see also" lists). Entries left without a sentence are dropped. The dictd header
/// entries (headwords starting "00-database") are skipped.
/// Documents go to heldOut when the hash of their title falls in the first `heldOutFraction` of
/// the hash range. `source` names the text in error messages. Throws apps::dataset_error when the
/// text is empty, looks binary, or yields no sentence.
Corpus corpusFromText(std::string_view text, double heldOutFraction = 0.05,
                      const std::string &source = "<text>");

/// Reads and parses the FOLDOC dictionary (gzip, dictzip or plain text). Throws
/// apps::dataset_error naming the file when it is missing (with the package to install),
/// unreadable, empty, binary or without sentences.
Corpus loadFoldocCorpus(const std::filesystem::path &dictFile = kFoldocDictPath,
                        double heldOutFraction = 0.05);

/// Splits one cleaned paragraph into sentences: after '.', '?' or '!' (and any closing quotes or
/// brackets) followed by whitespace and an upper-case letter, a digit or an opening quote, except
/// after common abbreviations (e.g., i.e., etc., Mr., vs., ...) and single capital initials.
std::vector<std::string> splitSentences(std::string_view paragraph);

/// Removes FOLDOC markup from one paragraph's text (see corpusFromText) and collapses whitespace.
/// `firstParagraph` also strips a leading `<category, tags>` list.
std::string cleanParagraph(std::string_view paragraph, bool firstParagraph);

} // namespace tessera::bert
