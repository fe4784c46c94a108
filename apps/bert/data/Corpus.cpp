#include "data/Corpus.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/Random.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace tessera::bert {
namespace {

using apps::dataset_error;

std::string installHint() {
  return "install the Debian package dict-foldoc (scripts/bootstrap does)";
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back()))
    s.remove_suffix(1);
  return s;
}

// Collapses runs of whitespace to one space, drops spaces before closing punctuation (left behind
// by removed markup) and trims.
std::string collapseWhitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pendingSpace = false;
  for (char c : s) {
    if (isSpace(c) || c == '\n') {
      pendingSpace = !out.empty();
      continue;
    }
    const bool closing =
        c == '.' || c == ',' || c == ';' || c == ':' || c == ')' || c == '?' || c == '!';
    if (pendingSpace && !closing)
      out += ' ';
    pendingSpace = false;
    out += c;
  }
  return out;
}

// "(1995-02-07)": the date an entry was last updated.
bool isDateLine(std::string_view s) {
  if (s.size() != 12 || s.front() != '(' || s.back() != ')')
    return false;
  for (std::size_t i = 1; i < 11; ++i) {
    const bool dash = i == 5 || i == 8;
    if (dash ? s[i] != '-' : !isDigit(s[i]))
      return false;
  }
  return true;
}

// Index of the bracket closing the one at `open`, or npos.
std::size_t matching(std::string_view s, std::size_t open, char openChar, char closeChar) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == openChar)
      ++depth;
    else if (s[i] == closeChar && --depth == 0)
      return i;
  }
  return std::string_view::npos;
}

// The visible text of a cross reference's inside: "left (left parenthesis)" -> "left",
// "Documentation (https://...)" -> "Documentation", "(http://x/)" -> "".
std::string_view crossReferenceText(std::string_view inside) {
  inside = trim(inside);
  if (!inside.empty() && inside.back() == ')') {
    int depth = 0;
    for (std::size_t i = inside.size(); i-- > 0;) {
      if (inside[i] == ')')
        ++depth;
      else if (inside[i] == '(' && --depth == 0) {
        if (i == 0 || isSpace(inside[i - 1]))
          return trim(inside.substr(0, i));
        break;
      }
    }
  }
  return inside;
}

bool isPronunciationChar(char c) { return !isSpace(c) && c != '/' && c != '{' && c != '}'; }

// A pronunciation "/broh'k*t/" starting at `start` (a '/'); returns its length or 0. Outside
// the entry's opening, only spellings with ' or * (never in paths) are taken as pronunciations.
std::size_t pronunciationLength(std::string_view s, std::size_t start, bool atOpening) {
  if (start > 0 && !isSpace(s[start - 1]) && s[start - 1] != '(')
    return 0;
  std::size_t end = start + 1;
  bool marked = false;
  while (end < s.size() && isPronunciationChar(s[end])) {
    marked = marked || s[end] == '\'' || s[end] == '*';
    ++end;
  }
  if (end == start + 1 || end >= s.size() || s[end] != '/')
    return 0;
  const std::size_t after = end + 1;
  if (after < s.size() && !isSpace(s[after]) && s[after] != ',' && s[after] != ';' &&
      s[after] != ')' && s[after] != '.')
    return 0;
  return (marked || atOpening) ? after - start : 0;
}

} // namespace

std::uint64_t stableHash(std::string_view bytes, std::uint64_t state) {
  for (char c : bytes) {
    state ^= static_cast<unsigned char>(c);
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::string cleanParagraph(std::string_view paragraph, bool firstParagraph) {
  std::string_view text = trim(paragraph);
  if (firstParagraph && !text.empty() && text.front() == '<') {
    const std::size_t close = text.find('>');
    if (close != std::string_view::npos)
      text = trim(text.substr(close + 1));
  }
  if (isDateLine(text))
    return {};
  // A whole paragraph in brackets is a source reference: "[Jargon File]", "[Author, Title, 1986]."
  if (!text.empty() && text.front() == '[' &&
      (text.back() == ']' || (text.size() > 1 && text.ends_with("].")))) {
    if (matching(text, 0, '[', ']') + 1 >= text.size() - 1)
      return {};
  }

  std::string out;
  out.reserve(text.size());
  bool outsideText = false; // any letter or digit outside cross references
  bool atOpening = firstParagraph;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '[') {
      // "[{Jargon File}]" and other bracketed references naming an entry.
      const std::size_t close = matching(text, i, '[', ']');
      if (close != std::string_view::npos &&
          text.substr(i, close - i).find('{') != std::string_view::npos) {
        i = close + 1;
        continue;
      }
    } else if (c == '{') {
      const std::size_t close = matching(text, i, '{', '}');
      if (close != std::string_view::npos) {
        out += crossReferenceText(text.substr(i + 1, close - i - 1));
        i = close + 1;
        atOpening = false;
        continue;
      }
      ++i; // an unbalanced brace is dropped
      continue;
    } else if (c == '}') {
      ++i;
      continue;
    } else if (c == '/') {
      if (const std::size_t n = pronunciationLength(text, i, atOpening)) {
        i += n;
        continue;
      }
    } else if (c == '_' && i + 1 < text.size() && text[i + 1] == '_') {
      i += 2;
      continue;
    }
    if (atOpening && !outsideText && c == ',') {
      ++i; // the comma between two opening pronunciations
      continue;
    }
    if (atOpening && text.substr(i, 3) == "or " && (i == 0 || isSpace(text[i - 1]))) {
      const std::size_t next = text.find_first_not_of(' ', i + 3);
      if (next != std::string_view::npos && text[next] == '/' &&
          pronunciationLength(text, next, true) > 0) {
        i += 3; // "/one/ or /other/"
        continue;
      }
    }
    if (isAlnum(c)) {
      outsideText = true;
      // The opening pronunciations come before any word of the definition.
      if (atOpening && (i == 0 || isSpace(text[i - 1])))
        atOpening = false;
    }
    out += c;
    ++i;
  }
  if (!outsideText)
    return {}; // only cross references: a redirect or a "see also" list
  std::string cleaned = collapseWhitespace(out);
  if (isDateLine(cleaned)) // a date with stray markup, "(2001}-02-03)"
    return {};
  return cleaned;
}

std::vector<std::string> splitSentences(std::string_view paragraph) {
  static constexpr std::array<std::string_view, 24> kAbbreviations = {
      "e.g.", "i.e.", "etc.", "mr.", "mrs.",    "ms.",  "dr.",   "vs.",
      "cf.",  "st.",  "no.",  "al.", "inc.",    "ltd.", "prof.", "jr.",
      "sr.",  "fig.", "vol.", "ca.", "approx.", "ed.",  "co.",   "corp."};
  std::vector<std::string> sentences;
  auto emit = [&](std::string_view s) {
    s = trim(s);
    if (std::any_of(s.begin(), s.end(), isAlnum))
      sentences.emplace_back(s);
  };
  std::size_t start = 0;
  const std::size_t n = paragraph.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = paragraph[i];
    if (c != '.' && c != '?' && c != '!')
      continue;
    std::size_t j = i + 1;
    while (j < n && (paragraph[j] == '"' || paragraph[j] == '\'' || paragraph[j] == ')' ||
                     paragraph[j] == ']'))
      ++j;
    if (j >= n || !isSpace(paragraph[j]))
      continue;
    std::size_t k = j;
    while (k < n && isSpace(paragraph[k]))
      ++k;
    if (k >= n)
      continue;
    const char next = paragraph[k];
    if (!isUpper(next) && !isDigit(next) && next != '"' && next != '\'')
      continue;
    if (c == '.') {
      std::size_t w = i;
      while (w > start && !isSpace(paragraph[w - 1]))
        --w;
      std::string word(paragraph.substr(w, i + 1 - w));
      while (!word.empty() && (word.front() == '(' || word.front() == '"' || word.front() == '\''))
        word.erase(word.begin());
      std::string lower = word;
      for (char &ch : lower)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (std::find(kAbbreviations.begin(), kAbbreviations.end(), lower) != kAbbreviations.end())
        continue;
      // Initials: "J.", "J.P.", "U.S."
      bool initials = word.size() >= 2;
      for (std::size_t p = 0; initials && p < word.size(); p += 2)
        initials = isUpper(word[p]) && p + 1 < word.size() && word[p + 1] == '.';
      if (initials && word.size() % 2 == 0)
        continue;
    }
    emit(paragraph.substr(start, j - start));
    start = k;
    i = k - 1;
  }
  emit(paragraph.substr(start));
  return sentences;
}

std::size_t Corpus::numSentences() const {
  std::size_t n = 0;
  for (const auto *split : {&training, &heldOut})
    for (const Document &d : *split)
      n += d.sentences.size();
  return n;
}

std::string Corpus::contentHash() const {
  std::uint64_t h = stableHash("tessera-bert-corpus-v1");
  for (const auto *split : {&training, &heldOut}) {
    h = stableHash("\x1d", h); // group separator between the splits
    for (const Document &d : *split) {
      h = stableHash(d.title, stableHash("\x1e", h));
      for (const std::string &s : d.sentences)
        h = stableHash(s, stableHash("\x1f", h));
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

Corpus corpusFromText(std::string_view text, double heldOutFraction, const std::string &source) {
  if (!(heldOutFraction >= 0.0 && heldOutFraction < 1.0))
    throw apps::cli_error("heldOutFraction " + std::to_string(heldOutFraction) +
                          " is outside [0, 1); use e.g. 0.05");
  if (trim(text).empty() || text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw dataset_error(source + " is empty; " + installHint() + " or point at FOLDOC's text");
  std::size_t controls = 0;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0)
      controls += text.size(); // a NUL never occurs in text
    else if (u < 0x20 && c != '\n' && c != '\t' && c != '\r' && c != '\f' && c != '\v')
      ++controls;
  }
  if (controls * 1000 > text.size())
    throw dataset_error(source +
                        " does not look like text (it holds binary bytes); expected the "
                        "FOLDOC dictionary: " +
                        installHint());

  Corpus corpus;
  Document current;
  std::vector<std::string> paragraphs;
  std::string paragraph;
  bool inEntry = false, inHeadwords = false, previousBlank = true;

  auto endParagraph = [&] {
    if (!paragraph.empty())
      paragraphs.push_back(std::move(paragraph));
    paragraph.clear();
  };
  auto endEntry = [&] {
    endParagraph();
    if (inEntry && !current.title.starts_with("00-database")) {
      for (std::size_t p = 0; p < paragraphs.size(); ++p)
        for (std::string &s : splitSentences(cleanParagraph(paragraphs[p], p == 0)))
          current.sentences.push_back(std::move(s));
      if (!current.sentences.empty()) {
        // FNV-1a's top bits are poorly mixed for similar titles; mix them first.
        const std::uint64_t mixed = apps::mixSeed({stableHash(current.title)});
        const double where = static_cast<double>(mixed >> 11) * 0x1.0p-53;
        (where < heldOutFraction ? corpus.heldOut : corpus.training).push_back(std::move(current));
      }
    }
    current = Document{};
    paragraphs.clear();
    inEntry = false;
  };

  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos)
      eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    const bool blank = trim(line).empty();
    if (blank) {
      inHeadwords = false;
      endParagraph();
      previousBlank = true;
      continue;
    }
    const bool columnZero = !isSpace(line.front());
    if (columnZero && previousBlank) {
      endEntry();
      current.title = std::string(trim(line));
      inEntry = inHeadwords = true;
    } else if (columnZero && inHeadwords) {
      // An alias headword: part of the entry's name, not its text.
    } else if (inEntry) {
      if (!paragraph.empty())
        paragraph += ' ';
      paragraph += trim(line);
    }
    previousBlank = false;
  }
  endEntry();
  if (corpus.training.empty() && corpus.heldOut.empty())
    throw dataset_error(source +
                        " holds no dictionary entry with a sentence; expected FOLDOC's "
                        "layout (headword at column 0, indented body): " +
                        installHint());
  return corpus;
}

Corpus loadFoldocCorpus(const std::filesystem::path &dictFile, double heldOutFraction) {
  std::error_code ec;
  if (!std::filesystem::exists(dictFile, ec))
    throw dataset_error("FOLDOC dictionary " + dictFile.string() + " does not exist; " +
                        installHint());
  gzFile in = gzopen(dictFile.c_str(), "rb");
  if (!in)
    throw dataset_error("cannot open FOLDOC dictionary " + dictFile.string() + "; " +
                        installHint());
  std::string text;
  std::array<char, 1 << 16> chunk;
  for (;;) {
    const int n = gzread(in, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n <= 0) {
      int code = 0;
      const char *why = gzerror(in, &code);
      const std::string reason = why ? why : "";
      if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
        gzclose(in);
        throw dataset_error("FOLDOC dictionary " + dictFile.string() +
                            " is corrupt or truncated (" + reason +
                            "); reinstall it: " + installHint());
      }
      break;
    }
    text.append(chunk.data(), static_cast<std::size_t>(n));
  }
  gzclose(in);
  return corpusFromText(text, heldOutFraction, "FOLDOC dictionary " + dictFile.string());
}

} // namespace tessera::bert
