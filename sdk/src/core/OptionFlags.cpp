#include <poplar/OptionFlags.hpp>

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

std::ostream &operator<<(std::ostream &os, const OptionFlags &flags) {
  os << '{';
  bool first = true;
  for (const auto &[k, v] : flags) {
    os << (first ? "" : ", ") << '"' << k << "\": \"" << v << '"';
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
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        default:
          out += e;
        }
      } else {
        out += c;
      }
    }
    expect('"');
    return out;
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
