// A small synthetic English-like corpus for BERT data tests, so they need no FOLDOC file and
// train their vocabularies in well under a second.
#pragma once

#include "data/Corpus.hpp"

#include "tessera/apps/Random.hpp"

#include <array>
#include <string>

namespace tessera::bert::testing {

/// `numDocuments` documents of 1–8 sentences of 4–14 words from a fixed word list. Deterministic.
inline Corpus syntheticCorpus(std::size_t numDocuments, std::uint64_t seed = 1) {
  static constexpr std::array<const char *, 48> kWords = {
      "the",      "a",       "compiler", "reads",  "program",   "network",  "sends",
      "data",     "packets", "memory",   "stores", "values",    "of",       "in",
      "and",      "to",      "is",       "an",     "processor", "executes", "instructions",
      "language", "defines", "syntax",   "for",    "every",     "file",     "system",
      "user",     "writes",  "code",     "that",   "runs",      "on",       "machine",
      "with",     "fast",    "small",    "large",  "table",     "list",     "function",
      "returns",  "result",  "hello",    "world",  "by",        "computer"};
  apps::SplitMix64 rng(seed);
  Corpus corpus;
  for (std::size_t d = 0; d < numDocuments; ++d) {
    Document doc;
    doc.title = "entry" + std::to_string(d);
    const std::size_t sentences = 1 + rng.below(8);
    for (std::size_t s = 0; s < sentences; ++s) {
      std::string sentence;
      const std::size_t words = 4 + rng.below(11);
      for (std::size_t w = 0; w < words; ++w) {
        std::string word = kWords[rng.below(kWords.size())];
        if (w == 0)
          word[0] = static_cast<char>(word[0] - 'a' + 'A');
        sentence += (w ? " " : "") + word;
      }
      if (rng.below(5) == 0)
        sentence += ", " + std::to_string(rng.below(100));
      sentence += rng.below(10) == 0 ? "!" : ".";
      doc.sentences.push_back(sentence);
    }
    (d % 10 == 9 ? corpus.heldOut : corpus.training).push_back(std::move(doc));
  }
  return corpus;
}

} // namespace tessera::bert::testing
