// JSON string literals, for every text the SDK writes as JSON (printed option flags, the HTML
// report's data, Chrome traces).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace poplar::core {

/// `s` as a JSON string literal: quotes, backslashes and every control character escaped; with
/// `forScript`, '<' too, so the text can sit inside an HTML <script> element.
inline std::string jsonQuoted(std::string_view s, bool forScript = false) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20 || (forScript && c == '<')) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
        out += escaped;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

} // namespace poplar::core
