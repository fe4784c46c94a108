#include "data/Vocabulary.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/FileEnvelope.hpp"

#include "data/SentencePieceTraining.hpp"
#include "data/UnigramModel.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace tessera::bert {
namespace {

using apps::dataset_error;

constexpr std::size_t kMinVocabularySize = 16;

// Everything that shapes the model besides the corpus and the size. Part of the cache key, so a
// change here never picks up a stale model. Determinism: all sentences are used in order
// (input_sentence_size=0, no shuffling) and the thread count is fixed (it is recorded in the
// model's trainer spec, and it fixes how the EM statistics are summed).
std::string trainerSettings() {
  return "--model_type=unigram --pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3 "
         "--pad_piece=[PAD] --unk_piece=[UNK] --bos_piece=[CLS] --eos_piece=[SEP] "
         "--user_defined_symbols=[MASK] --character_coverage=0.9995 "
         "--input_sentence_size=0 --shuffle_input_sentence=false --num_threads=2 "
         "--max_sentence_length=16384 --hard_vocab_limit=true --normalization_rule_name=identity "
         "--minloglevel=2";
}

std::string readFile(const std::filesystem::path &file) {
  try {
    return apps::readWholeFile(file, "vocabulary model");
  } catch (const apps::file_read_error &e) {
    throw dataset_error(std::string(e.what()) +
                        "; check its permissions, or delete it so the vocabulary is retrained");
  }
}

// Readers (other processes sharing the cache) never see a partial model.
void writeAtomically(const std::filesystem::path &file, const std::string &bytes) {
  try {
    apps::writeFileAtomically(file, bytes);
  } catch (const apps::file_write_error &e) {
    throw dataset_error(std::string(e.what()) +
                        "; set $TESSERA_DATA_CACHE to a writable directory");
  }
}

} // namespace

struct Vocabulary::Impl {
  UnigramModel model;
};

std::filesystem::path defaultVocabularyCacheDir() {
  if (const char *dir = std::getenv("TESSERA_DATA_CACHE"); dir && *dir)
    return dir;
  if (const char *dir = std::getenv("XDG_CACHE_HOME"); dir && *dir)
    return std::filesystem::path(dir) / "tessera" / "bert";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "tessera" / "bert";
  return std::filesystem::temp_directory_path() / "tessera" / "bert";
}

Vocabulary::Vocabulary(std::unique_ptr<Impl> impl, std::filesystem::path file,
                       std::string modelBytes, bool loadedFromCache)
    : impl_(std::move(impl)), file_(std::move(file)), modelBytes_(std::move(modelBytes)),
      loadedFromCache_(loadedFromCache) {}
Vocabulary::Vocabulary(Vocabulary &&) noexcept = default;
Vocabulary &Vocabulary::operator=(Vocabulary &&) noexcept = default;
Vocabulary::~Vocabulary() = default;

std::filesystem::path Vocabulary::cacheFile(const Corpus &corpus, std::size_t vocabSize,
                                            const std::filesystem::path &cacheDir) {
  const std::uint64_t key = stableHash(trainerSettings(), stableHash(corpus.contentHash()));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  return cacheDir / ("foldoc-" + std::string(hex) + "-v" + std::to_string(vocabSize) + ".model");
}

Vocabulary Vocabulary::fromBytes(std::string bytes, const std::filesystem::path &file,
                                 bool loadedFromCache) {
  const std::string retrain = "; delete it so the vocabulary is retrained";
  if (bytes.empty())
    throw dataset_error("vocabulary model " + file.string() + " is empty" + retrain);
  auto impl = std::make_unique<Impl>();
  try {
    impl->model = UnigramModel::parse(bytes);
  } catch (const std::invalid_argument &e) {
    throw dataset_error("vocabulary model " + file.string() + " is corrupt or truncated (" +
                        e.what() + ")" + retrain);
  }
  const auto &pieces = impl->model.pieces();
  static constexpr const char *kSpecial[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  if (pieces.size() < kFirstOrdinaryId)
    throw dataset_error("vocabulary model " + file.string() + " holds only " +
                        std::to_string(pieces.size()) + " pieces" + retrain);
  for (std::uint32_t id = 0; id < kFirstOrdinaryId; ++id)
    if (pieces[id].text != kSpecial[id])
      throw dataset_error("vocabulary model " + file.string() + " has piece \"" + pieces[id].text +
                          "\" at id " + std::to_string(id) + " where BERT needs " + kSpecial[id] +
                          retrain);
  if (impl->model.normalizerName() != "identity")
    throw dataset_error("vocabulary model " + file.string() + " uses the \"" +
                        impl->model.normalizerName() +
                        "\" normalizer; BERT's vocabularies use \"identity\"" + retrain);
  return Vocabulary(std::move(impl), file, std::move(bytes), loadedFromCache);
}

Vocabulary Vocabulary::load(const std::filesystem::path &modelFile) {
  std::error_code ec;
  if (!std::filesystem::exists(modelFile, ec))
    throw dataset_error("vocabulary model " + modelFile.string() +
                        " does not exist; train one with Vocabulary::trainOrLoad");
  return fromBytes(readFile(modelFile), modelFile, false);
}

Vocabulary Vocabulary::trainOrLoad(const Corpus &corpus, std::size_t vocabSize,
                                   const std::filesystem::path &cacheDir) {
  if (vocabSize < kMinVocabularySize || vocabSize > (std::size_t{1} << 24))
    throw apps::cli_error("vocabulary size " + std::to_string(vocabSize) + " is outside " +
                          std::to_string(kMinVocabularySize) + ".." +
                          std::to_string(std::size_t{1} << 24) + "; BERT uses 8192-32768");
  const std::filesystem::path file = cacheFile(corpus, vocabSize, cacheDir);
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    Vocabulary cached = fromBytes(readFile(file), file, true);
    if (cached.size() != vocabSize)
      throw dataset_error("vocabulary model " + file.string() + " has " +
                          std::to_string(cached.size()) + " pieces, not the " +
                          std::to_string(vocabSize) +
                          " its name promises (truncated?); delete it so the vocabulary is "
                          "retrained");
    return cached;
  }
  if (corpus.training.empty())
    throw dataset_error("cannot train a vocabulary: the corpus has no training documents");

  // SentencePiece reads its sentences from a file: one per line, next to the model's cache file.
  std::error_code ignored;
  std::filesystem::create_directories(cacheDir, ignored);
  std::string inputName = ".";
  inputName += file.filename().string();
  inputName += ".sentences.";
  inputName += std::to_string(::getpid());
  const std::filesystem::path input = cacheDir / inputName;
  {
    std::ofstream out(input, std::ios::trunc);
    for (const Document &d : corpus.training)
      for (const std::string &s : d.sentences)
        out << s << '\n';
    out.close();
    if (!out) {
      std::filesystem::remove(input, ignored);
      throw dataset_error("cannot write the vocabulary's training sentences to " + input.string() +
                          "; set $TESSERA_DATA_CACHE to a writable directory");
    }
  }
  std::string model;
  try {
    model = trainSentencePieceModel(input, trainerSettings() +
                                               " --vocab_size=" + std::to_string(vocabSize));
    model = UnigramModel::withoutTrainingInput(model);
  } catch (const apps::cli_error &e) {
    std::filesystem::remove(input, ignored);
    const std::string why = e.what();
    if (why.find("ocab") != std::string::npos)
      throw apps::cli_error("vocabulary size " + std::to_string(vocabSize) +
                            " does not fit the corpus (" + std::to_string(corpus.numSentences()) +
                            " sentences): SentencePiece says \"" + why +
                            "\"; choose a size in the range it names");
    throw apps::app_error("training the SentencePiece vocabulary failed: " + why);
  } catch (...) {
    std::filesystem::remove(input, ignored);
    throw;
  }
  std::filesystem::remove(input, ignored);
  Vocabulary trained = fromBytes(std::move(model), file, false);
  writeAtomically(file, trained.modelBytes());
  return trained;
}

std::vector<std::uint32_t> Vocabulary::encode(std::string_view text) const {
  return impl_->model.encode(text);
}

std::string Vocabulary::decode(const std::vector<std::uint32_t> &ids) const {
  for (std::uint32_t id : ids)
    if (id >= size())
      throw apps::app_error("cannot decode token id " + std::to_string(id) + ": the vocabulary " +
                            file_.string() + " has " + std::to_string(size()) + " ids");
  return impl_->model.decode(ids);
}

std::string Vocabulary::piece(std::uint32_t id) const {
  if (id >= size())
    throw apps::app_error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                          std::to_string(size()));
  return impl_->model.pieces()[id].text;
}

std::size_t Vocabulary::size() const { return impl_->model.pieces().size(); }

} // namespace tessera::bert
