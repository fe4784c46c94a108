// The FOLDOC corpus: entry parsing, markup removal, sentence splitting, errors.
#include "data/Corpus.hpp"

#include "TempDir.hpp"
#include "tessera/apps/Errors.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace tessera::bert {
namespace {

using apps::testing::TempDir;

const char *kSample = R"(00-database-short
     The Free On-line Dictionary of Computing (19 January 2023)

*LISP
StarLISP

   <language> (StarLISP) A {data-parallel} extension of {Common LISP}
   developed by Cliff Lasser, e.g. for the {Connection Machine}.  It
   ran on J.P. Massar's machines.

   [Cliff Lasser, Jeff Mincy, "The Essential *LISP Manual", TM Corp 1986].

   [{Jargon File}]

   (2014-12-17)

broket

   <character> /broh'k*t/ or /broh'ket/ A left or right {angle
   bracket (angle bracket)}.  Used by __some__ hackers [{Jargon File}].
   Is it common?  Yes!  "Quoted" text starts here.

   {esoteric programming languages} {wiki entry
   (http://esolangs.org/wiki/broket)}.

   (1995-02-07)

-

   {dash}

Only one

   <jargon> Ends with an abbreviation, etc. Then a number 42
{continued} at column zero.

   (2000-01-01)
)";

TEST(BertCorpus, ParsesEntriesAndRemovesMarkup) {
  const Corpus corpus = corpusFromText(kSample, 0.0);
  EXPECT_TRUE(corpus.heldOut.empty());
  ASSERT_EQ(corpus.training.size(), 3u); // the header and the redirect "-" are dropped
  const Document &lisp = corpus.training[0];
  EXPECT_EQ(lisp.title, "*LISP");
  ASSERT_EQ(lisp.sentences.size(), 2u);
  EXPECT_EQ(lisp.sentences[0], "(StarLISP) A data-parallel extension of Common LISP developed by "
                               "Cliff Lasser, e.g. for the Connection Machine.");
  EXPECT_EQ(lisp.sentences[1], "It ran on J.P. Massar's machines.");

  const Document &broket = corpus.training[1];
  EXPECT_EQ(broket.title, "broket");
  ASSERT_EQ(broket.sentences.size(), 5u);
  EXPECT_EQ(broket.sentences[0], "A left or right angle bracket.");
  EXPECT_EQ(broket.sentences[1], "Used by some hackers.");
  EXPECT_EQ(broket.sentences[2], "Is it common?");
  EXPECT_EQ(broket.sentences[3], "Yes!");
  EXPECT_EQ(broket.sentences[4], "\"Quoted\" text starts here.");

  const Document &only = corpus.training[2];
  ASSERT_EQ(only.sentences.size(), 1u);
  EXPECT_EQ(only.sentences[0],
            "Ends with an abbreviation, etc. Then a number 42 continued at column zero.");
}

TEST(BertCorpus, SplitsSentencesAfterTerminators) {
  EXPECT_EQ(
      splitSentences("One. Two? \"Three\" four! 5 five. i.e. Not split."),
      (std::vector<std::string>{"One.", "Two?", "\"Three\" four!", "5 five. i.e. Not split."}));
  EXPECT_EQ(
      splitSentences("Version 2.0 is out. Mr. Smith vs. Jones. See A. Turing."),
      (std::vector<std::string>{"Version 2.0 is out.", "Mr. Smith vs. Jones.", "See A. Turing."}));
}

TEST(BertCorpus, HeldOutSplitIsDeterministicByTitle) {
  std::string text;
  for (int i = 0; i < 200; ++i)
    text +=
        "entry" + std::to_string(i) + "\n\n   Entry number " + std::to_string(i) + " is here.\n\n";
  const Corpus a = corpusFromText(text, 0.2), b = corpusFromText(text, 0.2);
  EXPECT_EQ(a.training, b.training);
  EXPECT_EQ(a.heldOut, b.heldOut);
  EXPECT_EQ(a.contentHash(), b.contentHash());
  EXPECT_GT(a.heldOut.size(), 15u);
  EXPECT_LT(a.heldOut.size(), 70u);
  // A larger fraction only moves entries into held-out, never out of it.
  const Corpus c = corpusFromText(text, 0.4);
  for (const Document &d : a.heldOut)
    EXPECT_NE(std::find(c.heldOut.begin(), c.heldOut.end(), d), c.heldOut.end()) << d.title;
  EXPECT_NE(a.contentHash(), c.contentHash());
}

bool isDateOnly(const std::string &s) { return s.size() == 12 && s[0] == '(' && s[5] == '-'; }

TEST(BertCorpus, RealFoldocLoads) {
  if (!std::filesystem::exists(kFoldocDictPath))
    GTEST_SKIP() << kFoldocDictPath << " missing (install dict-foldoc)";
  const Corpus corpus = loadFoldocCorpus();
  EXPECT_GE(corpus.training.size() + corpus.heldOut.size(), 10000u);
  EXPECT_GT(corpus.heldOut.size(), 300u);
  EXPECT_GT(corpus.numSentences(), 40000u);
  for (const Document &d : corpus.training)
    for (const std::string &s : d.sentences) {
      ASSERT_EQ(s.find("{Jargon File}"), std::string::npos) << d.title << ": " << s;
      ASSERT_FALSE(isDateOnly(s)) << d.title << ": " << s;
      ASSERT_EQ(s.find("  "), std::string::npos) << d.title << ": " << s;
      ASSERT_FALSE(s.empty()) << d.title;
    }
}

std::string messageOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const apps::dataset_error &e) {
    return e.what();
  }
  return "no dataset_error";
}

TEST(BertCorpus, MissingFileNamesThePackage) {
  const std::string m = messageOf([] { loadFoldocCorpus("/nonexistent/foldoc.dict.dz"); });
  EXPECT_NE(m.find("/nonexistent/foldoc.dict.dz"), std::string::npos) << m;
  EXPECT_NE(m.find("dict-foldoc"), std::string::npos) << m;
}

TEST(BertCorpus, EmptyAndBinaryFilesAreRejected) {
  TempDir dir;
  const auto empty = dir / "empty.dict";
  std::ofstream(empty).close();
  std::string m = messageOf([&] { loadFoldocCorpus(empty); });
  EXPECT_NE(m.find(empty.string()), std::string::npos) << m;
  EXPECT_NE(m.find("empty"), std::string::npos) << m;

  const auto binary = dir / "binary.dict";
  {
    std::ofstream out(binary, std::ios::binary);
    for (int i = 0; i < 4096; ++i)
      out.put(static_cast<char>((i * 7919) & 0xff));
  }
  m = messageOf([&] { loadFoldocCorpus(binary); });
  EXPECT_NE(m.find(binary.string()), std::string::npos) << m;
  EXPECT_NE(m.find("binary"), std::string::npos) << m;

  const auto noSentences = dir / "headwords.dict";
  std::ofstream(noSentences) << "alpha\n\n   {beta}\n\ngamma\n\n   (2001-01-01)\n";
  m = messageOf([&] { loadFoldocCorpus(noSentences); });
  EXPECT_NE(m.find(noSentences.string()), std::string::npos) << m;
  EXPECT_NE(m.find("no dictionary entry"), std::string::npos) << m;
}

} // namespace
} // namespace tessera::bert
