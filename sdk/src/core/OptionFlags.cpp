#include <poplar/OptionFlags.hpp>

#include "core/JsonQuote.hpp"

#include <cctype>
#include <ostream>

#include <poplar/exceptions.hpp>

namespace poplar {

StringRef OptionFlags::at(StringRef key) const {
  auto it = values_.find(key.str());
  if (it == values_.end())
    throw invalid_option("option '" + key.str() + "' is not set");
  return it->second;
}

namespace {
/// `s` as a JSON string literal, so printed flags read back with readJSON.
std::string quoted(const std::string &s) { return core::jsonQuoted(s); }
} // namespace

std::ostream &operator<<(std::ostream &os, const OptionFlags &flags) {
  os << '{';
  bool first = true;
  for (const auto &[k, v] : flags) {
    os << (first ? "" : ", ") << quoted(k) << ": " << quoted(v);
    first = false;
  }
  return os << '}';
}

namespace {

/// A small reader for flat JSON objects of scalars, which is all option strings need.
class JsonReader {
public:
  explicit JsonReader(std::string_view s) : s_(s) {}

  void readObject(OptionFlags &flags) {
    skip();
    expect('{');
    skip();
    if (peek() == '}') {
      ++pos_;
      finish();
      return;
    }
    for (;;) {
      skip();
      std::string key = readString();
      skip();
      expect(':');
      skip();
      std::string value = readScalar();
      flags.set(key, value);
      skip();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      finish();
      return;
    }
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw parse_error("JSON options: " + what + " at offset " + std::to_string(pos_) + " in '" +
                      std::string(s_) + "'");
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  void expect(char c) {
    if (peek() != c)
      fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void finish() {
    skip();
    if (pos_ != s_.size())
      fail("trailing characters");
  }
  std::string readString() {
    expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size())
          fail("unterminated escape");
        char e = s_[pos_++];
        switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          appendUtf8(out, readHex4());
          break;
        default:
          --pos_;
          fail(std::string("invalid escape '\\") + e + "'");
        }
      } else {
        out += c;
      }
    }
    expect('"');
    return out;
  }
  /// The four hex digits of a backslash-u escape (surrogate pairs are not combined).
  unsigned readHex4() {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      if (!std::isxdigit(static_cast<unsigned char>(c)))
        fail("expected four hex digits after '\\u'");
      v = v * 16 +
          static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c))
                                    ? c - '0'
                                    : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
      ++pos_;
    }
    return v;
  }
  static void appendUtf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string readScalar() {
    if (peek() == '"')
      return readString();
    std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '.' || s_[pos_] == '-' || s_[pos_] == '+'))
      ++pos_;
    if (start == pos_)
      fail("expected a string, number or boolean value");
    return std::string(s_.substr(start, pos_ - start));
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

} // namespace

void readJSON(StringRef json, OptionFlags &flags) { JsonReader(json.view()).readObject(flags); }

} // namespace poplar
