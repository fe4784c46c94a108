// The SentencePiece vocabulary: fixed special ids, round trips, deterministic training, caching.
#include "data/Vocabulary.hpp"

#include "BertTestCorpus.hpp"
#include "TempDir.hpp"
#include "tessera/apps/Errors.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace tessera::bert {
namespace {

using apps::testing::TempDir;

std::string fileBytes(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BertVocabulary, SpecialIdsAreFixedAndTextRoundTrips) {
  TempDir dir;
  const Corpus corpus = testing::syntheticCorpus(400);
  const Vocabulary vocab = Vocabulary::trainOrLoad(corpus, 200, dir.path());
  EXPECT_EQ(vocab.size(), 200u);
  EXPECT_EQ(vocab.piece(kPadId), "[PAD]");
  EXPECT_EQ(vocab.piece(kUnkId), "[UNK]");
  EXPECT_EQ(vocab.piece(kClsId), "[CLS]");
  EXPECT_EQ(vocab.piece(kSepId), "[SEP]");
  EXPECT_EQ(vocab.piece(kMaskId), "[MASK]");
  for (const char *text :
       {"The compiler reads the program.", "A network sends data packets.", "Hello, world 42!"}) {
    const auto ids = vocab.encode(text);
    EXPECT_FALSE(ids.empty());
    for (std::uint32_t id : ids) {
      EXPECT_GE(id, kUnkId);
      EXPECT_NE(id, kClsId);
      EXPECT_NE(id, kSepId);
      EXPECT_LT(id, vocab.size());
    }
    EXPECT_EQ(vocab.decode(ids), text);
  }
  // Control tokens vanish when decoding; [MASK] shows.
  auto ids = vocab.encode("data");
  ids.insert(ids.begin(), kClsId);
  ids.push_back(kSepId);
  ids.push_back(kPadId);
  EXPECT_EQ(vocab.decode(ids), "data");
  EXPECT_THROW(vocab.decode({static_cast<std::uint32_t>(vocab.size())}), apps::app_error);
}

TEST(BertVocabulary, TrainingIsDeterministicAndCached) {
  TempDir dir;
  const Corpus corpus = testing::syntheticCorpus(400);
  const auto first = dir / "first", second = dir / "second";
  const Vocabulary a = Vocabulary::trainOrLoad(corpus, 160, first);
  const Vocabulary b = Vocabulary::trainOrLoad(corpus, 160, second);
  EXPECT_FALSE(a.loadedFromCache());
  EXPECT_FALSE(b.loadedFromCache());
  EXPECT_EQ(a.file().parent_path(), first);
  EXPECT_EQ(a.file().filename(), b.file().filename());
  EXPECT_TRUE(a.file().filename().string().starts_with("foldoc-"));
  EXPECT_TRUE(a.file().filename().string().ends_with("-v160.model"));
  EXPECT_EQ(fileBytes(a.file()), fileBytes(b.file()));
  EXPECT_EQ(a.modelBytes(), fileBytes(a.file()));

  const auto mtime = std::filesystem::last_write_time(a.file());
  const Vocabulary again = Vocabulary::trainOrLoad(corpus, 160, first);
  EXPECT_TRUE(again.loadedFromCache());
  EXPECT_EQ(std::filesystem::last_write_time(a.file()), mtime);
  EXPECT_EQ(again.encode("The compiler reads the program."),
            a.encode("The compiler reads the program."));
  // No temp files left behind.
  std::size_t files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(first))
    files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);

  // Another size or another corpus is another file.
  EXPECT_NE(Vocabulary::cacheFile(corpus, 161, first), a.file());
  EXPECT_NE(Vocabulary::cacheFile(testing::syntheticCorpus(401), 160, first), a.file());
}

TEST(BertVocabulary, CorruptModelFileIsNamed) {
  TempDir dir;
  const Corpus corpus = testing::syntheticCorpus(400);
  const Vocabulary vocab = Vocabulary::trainOrLoad(corpus, 160, dir.path());
  const std::filesystem::path file = vocab.file();
  const std::string bytes = vocab.modelBytes();
  for (std::size_t keep : {bytes.size() / 2, bytes.size() - 3, std::size_t{0}}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(keep));
    try {
      (void)Vocabulary::trainOrLoad(corpus, 160, dir.path());
      ADD_FAILURE() << "a model truncated to " << keep << " bytes loaded";
    } catch (const apps::dataset_error &e) {
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("delete it"), std::string::npos) << e.what();
    }
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << "this is not a model";
  EXPECT_THROW((void)Vocabulary::load(file), apps::dataset_error);
  EXPECT_THROW((void)Vocabulary::load(dir / "missing.model"), apps::dataset_error);
}

TEST(BertVocabulary, SizesOutsideTheCorpusRangeAreRejected) {
  TempDir dir;
  const Corpus corpus = testing::syntheticCorpus(50);
  EXPECT_THROW((void)Vocabulary::trainOrLoad(corpus, 4, dir.path()), apps::cli_error);
  try {
    (void)Vocabulary::trainOrLoad(corpus, 100000, dir.path());
    ADD_FAILURE() << "a 100000-piece vocabulary trained on a tiny corpus";
  } catch (const apps::cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("100000"), std::string::npos) << e.what();
  }
}

TEST(BertVocabulary, DefaultCacheDirFollowsTheEnvironment) {
  const char *saved = std::getenv("TESSERA_DATA_CACHE");
  const std::string savedValue = saved ? saved : "";
  ::setenv("TESSERA_DATA_CACHE", "/tmp/tessera-cache-test", 1);
  EXPECT_EQ(defaultVocabularyCacheDir(), "/tmp/tessera-cache-test");
  ::unsetenv("TESSERA_DATA_CACHE");
  const std::string path = defaultVocabularyCacheDir().string();
  EXPECT_TRUE(path.ends_with("tessera/bert")) << path;
  if (saved)
    ::setenv("TESSERA_DATA_CACHE", savedValue.c_str(), 1);
}

} // namespace
} // namespace tessera::bert

namespace tessera::bert {
namespace {

// Run by hand (--gtest_also_run_disabled_tests): trains the default vocabulary on the whole of
// FOLDOC and prints how long it took.
TEST(BertVocabulary, DISABLED_TrainsTheFullFoldocVocabulary) {
  if (!std::filesystem::exists(kFoldocDictPath))
    GTEST_SKIP() << kFoldocDictPath << " missing (install dict-foldoc)";
  TempDir dir;
  const Corpus corpus = loadFoldocCorpus();
  const auto start = std::chrono::steady_clock::now();
  const Vocabulary vocab = Vocabulary::trainOrLoad(corpus, kDefaultVocabularySize, dir.path());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("trained %zu pieces on %zu sentences in %.1f s\n", vocab.size(),
              corpus.numSentences(), seconds);
  const std::string text = "A compiler translates a program into machine code.";
  EXPECT_EQ(vocab.decode(vocab.encode(text)), text);
  std::size_t tokens = 0, unknown = 0;
  for (const Document &d : corpus.heldOut)
    for (const std::string &s : d.sentences)
      for (std::uint32_t id : vocab.encode(s)) {
        ++tokens;
        unknown += id == kUnkId;
      }
  std::printf("held-out: %zu tokens, %zu unknown\n", tokens, unknown);
}

} // namespace
} // namespace tessera::bert
