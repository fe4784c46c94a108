#include "model/BertConfig.hpp"

#include <cmath>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

namespace tessera::bert {
using apps::cli_error;

namespace {

BertConfig preset(const std::string &name, std::size_t layers, std::size_t hidden,
                  std::size_t heads, std::size_t ffn) {
  BertConfig c;
  c.name = name;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.ffn = ffn;
  return c;
}

void requirePositive(std::size_t value, const char *flag) {
  if (value == 0)
    throw cli_error(std::string("--") + flag + " must be at least 1");
}

} // namespace

const std::vector<std::string> &configNames() {
  static const std::vector<std::string> names{"tiny", "mini", "base", "large"};
  return names;
}

BertConfig configByName(const std::string &name) {
  if (name == "tiny")
    return preset(name, 2, 128, 2, 512);
  if (name == "mini")
    return preset(name, 4, 256, 4, 1024);
  if (name == "base")
    return preset(name, 12, 768, 12, 3072);
  if (name == "large")
    return preset(name, 24, 1024, 16, 4096);
  std::string message =
      "--config: unknown configuration '" + name + "' (known: tiny, mini, " + "base, large)";
  const std::string nearest = apps::nearestName(name, configNames());
  if (!nearest.empty())
    message += "; did you mean '" + nearest + "'?";
  throw cli_error(message);
}

std::size_t defaultMaxPredictions(std::size_t sequenceLength) {
  // 20 of 128 is BERT's phase-1 setting; longer sequences keep the same share, rounded up to a
  // multiple of 4 (76 at 512, as published; 60 at 384 where the published runs used 56–60).
  const double scaled = std::ceil(20.0 * double(sequenceLength) / 128.0 / 4.0) * 4.0;
  return std::max<std::size_t>(1, std::size_t(scaled));
}

void BertConfig::validate() const {
  requirePositive(layers, "layers");
  requirePositive(hidden, "hidden");
  requirePositive(heads, "heads");
  requirePositive(ffn, "ffn");
  requirePositive(vocabSize, "vocab-size");
  requirePositive(sequenceLength, "sequence-length");
  requirePositive(maxPredictions, "max-predictions");
  if (hidden % heads != 0)
    throw cli_error("--heads " + std::to_string(heads) + " does not divide --hidden " +
                    std::to_string(hidden) + ": every head needs hidden / heads features");
  if (sequenceLength > maxPositions)
    throw cli_error("--sequence-length " + std::to_string(sequenceLength) +
                    " is longer than the position table (" + std::to_string(maxPositions) +
                    " positions)");
  if (maxPredictions > sequenceLength)
    throw cli_error("--max-predictions " + std::to_string(maxPredictions) +
                    " is more than the sequence length " + std::to_string(sequenceLength));
  if (maxSequencesPerRow == 0 || maxSequencesPerRow > 3)
    throw cli_error("sequences per packed row must be 1 to 3, not " +
                    std::to_string(maxSequencesPerRow));
  for (const auto &[value, flag] : {std::pair{hiddenDropout, "hidden-dropout"},
                                    std::pair{attentionDropout, "attention-dropout"}})
    if (!(value >= 0.0f && value < 1.0f))
      throw cli_error(std::string("--") + flag + " must be in [0, 1), not " +
                      std::to_string(value));
}

} // namespace tessera::bert
