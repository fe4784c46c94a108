// A small C++ scanner: enough structure (namespaces, classes, member declarations, explicit
// instantiations) to name every vertex class and field of a codelet file.
#include "codelet/CodeletParser.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace poplar::codelet {

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentifier(const std::string &t) { return !t.empty() && isIdentStart(t[0]); }

/// Follows `#if` / `#ifdef` / `#ifndef` / `#elif` / `#else` / `#endif` to know which code the
/// compiler will see. Codelets are compiled with `__POPC__` defined, so a branch that needs it
/// undefined (`#ifndef __POPC__`, `#else` of `#ifdef __POPC__`, `#if !defined(__POPC__)`) is
/// host-only code and may hold a second definition of a vertex or field; it is skipped. Every
/// other condition is unknown here and its branches are all read, as if they were compiled.
class PopcConditionals {
public:
  bool active() const { return frames_.empty() || frames_.back().active; }

  /// `directive` is the text after `#`, continuation lines joined.
  void apply(const std::string &directive) {
    std::size_t p = directive.find_first_not_of(" \t");
    if (p == std::string::npos)
      return;
    std::size_t e = p;
    while (e < directive.size() && isIdentChar(directive[e]))
      ++e;
    const std::string keyword = directive.substr(p, e - p);
    std::string rest;
    for (std::size_t k = e; k < directive.size(); ++k) {
      if (directive.compare(k, 2, "//") == 0 || directive.compare(k, 2, "/*") == 0)
        break;
      if (!std::isspace(static_cast<unsigned char>(directive[k])) && directive[k] != '\\')
        rest += directive[k];
    }
    if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") {
      const Known c = keyword == "ifdef"    ? (rest == kPopc ? Known::True : Known::Unknown)
                      : keyword == "ifndef" ? (rest == kPopc ? Known::False : Known::Unknown)
                                            : evaluate(rest);
      frames_.push_back({active(), active() && c != Known::False, c == Known::True});
    } else if (keyword == "elif" && !frames_.empty()) {
      Frame &f = frames_.back();
      const Known c = evaluate(rest);
      f.active = f.parentActive && !f.taken && c != Known::False;
      f.taken = f.taken || c == Known::True;
    } else if (keyword == "else" && !frames_.empty()) {
      Frame &f = frames_.back();
      f.active = f.parentActive && !f.taken;
    } else if (keyword == "endif" && !frames_.empty()) {
      frames_.pop_back();
    }
  }

private:
  enum class Known { True, False, Unknown };
  static constexpr const char *kPopc = "__POPC__";
  struct Frame {
    bool parentActive;
    bool active;
    bool taken; ///< A branch of this chain is known to be the one compiled.
  };

  /// `#if` expressions about __POPC__ alone (spaces removed); anything else is unknown.
  static Known evaluate(const std::string &e) {
    for (const char *on : {"__POPC__", "defined(__POPC__)", "defined__POPC__"}) {
      if (e == on)
        return Known::True;
      if (e == std::string("!") + on)
        return Known::False;
    }
    return Known::Unknown;
  }

  std::vector<Frame> frames_;
};

/// The source with comments, string/character literals, preprocessor lines and host-only
/// branches (see PopcConditionals) replaced by spaces (newlines kept), so that only
/// declarations the codelet compiler sees remain to be tokenised.
std::string stripNonCode(const std::string &src, std::vector<std::string> *quoteIncludes) {
  std::string out(src.size(), ' ');
  std::size_t i = 0;
  bool lineStart = true;
  auto keepNewline = [&](std::size_t at) {
    if (src[at] == '\n')
      out[at] = '\n';
  };
  PopcConditionals conditionals;
  std::size_t inactiveFrom = 0; // start of the skipped branch, while one is being read
  auto blankSkipped = [&](std::size_t end) {
    for (std::size_t k = inactiveFrom; k < end; ++k)
      out[k] = src[k] == '\n' ? '\n' : ' ';
  };
  while (i < src.size()) {
    const char c = src[i];
    if (c == '\n') {
      out[i++] = '\n';
      lineStart = true;
      continue;
    }
    if (lineStart && c == '#') {
      // A preprocessor line, with backslash continuations. Note `#include "…"`.
      std::size_t end = i;
      while (end < src.size() && !(src[end] == '\n' && src[end - 1] != '\\'))
        ++end;
      const bool wasActive = conditionals.active();
      if (!wasActive)
        blankSkipped(i);
      conditionals.apply(src.substr(i + 1, end - i - 1));
      if (!conditionals.active())
        inactiveFrom = end;
      if (quoteIncludes) {
        std::string line = src.substr(i + 1, end - i - 1);
        std::size_t p = line.find_first_not_of(" \t");
        if (p != std::string::npos && line.compare(p, 7, "include") == 0) {
          std::size_t q = line.find('"', p + 7);
          std::size_t r = q == std::string::npos ? q : line.find('"', q + 1);
          if (r != std::string::npos)
            quoteIncludes->push_back(line.substr(q + 1, r - q - 1));
        }
      }
      for (std::size_t k = i; k < end; ++k)
        keepNewline(k);
      i = end;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c)))
      lineStart = false;
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      std::size_t end = src.find("*/", i + 2);
      end = end == std::string::npos ? src.size() : end + 2;
      for (std::size_t k = i; k < end; ++k)
        keepNewline(k);
      i = end;
      continue;
    }
    if (c == 'R' && i + 1 < src.size() && src[i + 1] == '"' &&
        (i == 0 || !isIdentChar(src[i - 1]))) {
      // Raw string R"delim( … )delim".
      std::size_t open = src.find('(', i + 2);
      if (open != std::string::npos) {
        std::string close = ")";
        close.append(src, i + 2, open - i - 2);
        close.push_back('"');
        std::size_t end = src.find(close, open);
        end = end == std::string::npos ? src.size() : end + close.size();
        for (std::size_t k = i; k < end; ++k)
          keepNewline(k);
        out[i] = '0';
        i = end;
        continue;
      }
    }
    if (c == '"' ||
        (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(src[i - 1]))))) {
      // A literal (a quote after a hex digit is a digit separator: 1'000).
      std::size_t k = i + 1;
      while (k < src.size() && src[k] != c && src[k] != '\n')
        k += src[k] == '\\' ? 2 : 1;
      out[i] = '0';
      i = std::min(k + 1, src.size());
      continue;
    }
    out[i++] = c;
  }
  if (!conditionals.active())
    blankSkipped(src.size());
  return out;
}

std::vector<std::string> tokenize(const std::string &code) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (isIdentStart(c)) {
      std::size_t k = i;
      while (k < code.size() && isIdentChar(code[k]))
        ++k;
      tokens.push_back(code.substr(i, k - i));
      i = k;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t k = i;
      while (k < code.size() && (isIdentChar(code[k]) || code[k] == '.' || code[k] == '\''))
        ++k;
      tokens.push_back(code.substr(i, k - i));
      i = k;
    } else if (c == ':' && i + 1 < code.size() && code[i + 1] == ':') {
      tokens.push_back("::");
      i += 2;
    } else {
      // Single characters only: `>>` stays two `>` so template brackets balance.
      tokens.push_back(std::string(1, c));
      ++i;
    }
  }
  return tokens;
}

using Tokens = std::vector<std::string>;

/// Index of the bracket closing the one at `open` (tokens[open] is one of `{ ( [ <`).
std::size_t matching(const Tokens &t, std::size_t open) {
  const std::string o = t[open];
  const std::string c = o == "{" ? "}" : o == "(" ? ")" : o == "[" ? "]" : ">";
  int depth = 0;
  for (std::size_t i = open; i < t.size(); ++i) {
    if (t[i] == o)
      ++depth;
    else if (t[i] == c && --depth == 0)
      return i;
    else if (o == "<" && (t[i] == ";" || t[i] == "{" || t[i] == "}"))
      return i; // not a template bracket after all
  }
  return t.size();
}

/// Spells a token run as C++ would print a type: "ns::Foo<float,4>" (`compact`) or with a
/// space only where two words meet ("unsigned int").
std::string spell(const Tokens &t, std::size_t b, std::size_t e, bool compact) {
  std::string s;
  for (std::size_t i = b; i < e; ++i) {
    if (!s.empty() && (isIdentChar(s.back()) && isIdentChar(t[i][0])))
      s += ' ';
    else if (!compact && !s.empty() && s.back() == ',')
      s += ' ';
    s += t[i];
  }
  return s;
}

/// Removes `alignas(…)`, `[[…]]` and `__attribute__((…))` from a token run.
Tokens withoutAttributes(const Tokens &in) {
  Tokens out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if ((in[i] == "alignas" || in[i] == "__attribute__" || in[i] == "__declspec") &&
        i + 1 < in.size() && in[i + 1] == "(") {
      i = matching(in, i + 1);
    } else if (in[i] == "[" && i + 1 < in.size() && in[i + 1] == "[") {
      i = matching(in, i);
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

/// Splits at commas outside every kind of bracket.
std::vector<Tokens> splitTopLevel(const Tokens &t) {
  std::vector<Tokens> parts(1);
  int depth = 0;
  for (const auto &x : t) {
    if (x == "(" || x == "[" || x == "{" || x == "<")
      ++depth;
    else if (x == ")" || x == "]" || x == "}" || x == ">")
      --depth;
    if (x == "," && depth == 0)
      parts.emplace_back();
    else
      parts.back().push_back(x);
  }
  return parts;
}

const std::set<std::string> kSkipStatement = {
    "using", "typedef",       "static",    "friend",    "template", "enum",     "class",  "struct",
    "union", "static_assert", "constexpr", "consteval", "virtual",  "explicit", "inline", "~"};

/// Data member names declared by one statement of a class body, or none.
void memberNames(const Tokens &raw, std::vector<std::string> &out) {
  const Tokens stmt = withoutAttributes(raw);
  if (stmt.empty() || kSkipStatement.count(stmt.front()))
    return;
  // A `(` before any `=` makes it a function declaration (or a macro call).
  for (const auto &x : stmt) {
    if (x == "=" || x == "{")
      break;
    if (x == "(")
      return;
  }
  bool first = true;
  for (const auto &decl : splitTopLevel(stmt)) {
    std::size_t end = decl.size();
    for (std::size_t i = 0; i < decl.size(); ++i)
      if (decl[i] == "=" || decl[i] == "{" || decl[i] == ":" || decl[i] == "[") {
        end = i;
        break;
      }
    const bool unsupported =
        end < decl.size() && (decl[end] == "[" || decl[end] == ":"); // arrays, bit-fields
    const bool indirect = std::any_of(decl.begin(), decl.begin() + static_cast<long>(end),
                                      [](const std::string &x) { return x == "*" || x == "&"; });
    const std::size_t minTokens = first ? 2 : 1;
    first = false;
    if (unsupported || indirect || end < minTokens || !isIdentifier(decl[end - 1]))
      continue;
    out.push_back(decl[end - 1]);
  }
}

/// Field names of the class body tokens [b, e).
std::vector<std::string> parseClassBody(const Tokens &t, std::size_t b, std::size_t e) {
  std::vector<std::string> fields;
  Tokens stmt;
  for (std::size_t i = b; i < e; ++i) {
    const std::string &x = t[i];
    if (x == "{") {
      const std::size_t close = matching(t, i);
      const bool nestedType =
          !stmt.empty() && (stmt.front() == "class" || stmt.front() == "struct" ||
                            stmt.front() == "enum" || stmt.front() == "union");
      bool function = false;
      for (const auto &s : stmt) {
        if (s == "=")
          break;
        if (s == "(")
          function = true;
      }
      i = close;
      if (function && !nestedType) {
        stmt.clear(); // a member function body ends the declaration
      } else {
        stmt.push_back("{");
        stmt.push_back("}");
      }
      continue;
    }
    if (x == ";") {
      memberNames(stmt, fields);
      stmt.clear();
      continue;
    }
    if (x == ":" && stmt.size() == 1 &&
        (stmt[0] == "public" || stmt[0] == "private" || stmt[0] == "protected")) {
      stmt.clear();
      continue;
    }
    stmt.push_back(x);
  }
  return fields;
}

bool isVertexBase(const Tokens &base) {
  Tokens name;
  for (const auto &x : base)
    if (x != "public" && x != "protected" && x != "private" && x != "virtual")
      name.push_back(x);
  if (!name.empty() && name.front() == "::")
    name.erase(name.begin());
  if (name.size() == 3 && name[0] == "poplar" && name[1] == "::")
    name.erase(name.begin(), name.begin() + 2);
  // SupervisorVertexIf<cond> is Poplar's alias choosing SupervisorVertex or Vertex.
  if (name.size() >= 2 && name[0] == "SupervisorVertexIf" && name[1] == "<")
    return true;
  return name.size() == 1 &&
         (name[0] == "Vertex" || name[0] == "MultiVertex" || name[0] == "SupervisorVertex");
}

struct ClassFound {
  std::string qualified; // "ns::Foo"
  bool isTemplate = false;
  std::vector<std::string> fields;
  bool instantiated = false;
};

std::string join(const std::vector<std::string> &scopes, const std::string &name) {
  std::string s;
  for (const auto &n : scopes)
    if (!n.empty())
      s += n + "::";
  return s + name;
}

class Scanner {
public:
  explicit Scanner(Tokens t) : t_(std::move(t)) {}

  ParsedCodelets run() {
    scan(0, t_.size());
    ParsedCodelets out;
    for (auto &c : classes_)
      if (!c.isTemplate)
        out.vertices.push_back({c.qualified, "::" + c.qualified, c.fields});
    for (auto &inst : instantiations_)
      out.vertices.push_back(std::move(inst));
    for (auto &c : classes_)
      if (c.isTemplate && !c.instantiated)
        out.uninstantiatedTemplates.push_back(c.qualified);
    return out;
  }

private:
  // Scans namespace-scope tokens [b, e).
  void scan(std::size_t b, std::size_t e) {
    bool templateHead = false;
    for (std::size_t i = b; i < e; ++i) {
      const std::string &x = t_[i];
      if (x == "namespace") {
        std::vector<std::string> names;
        std::size_t k = i + 1;
        while (k < e && (isIdentifier(t_[k]) || t_[k] == "::")) {
          if (t_[k] != "::" && t_[k] != "inline")
            names.push_back(t_[k]);
          ++k;
        }
        if (k < e && t_[k] == "{") {
          const std::size_t close = matching(t_, k);
          const std::size_t depth = scopes_.size();
          if (names.empty())
            scopes_.push_back("");
          for (auto &n : names)
            scopes_.push_back(n);
          scan(k + 1, std::min(close, e));
          scopes_.resize(depth);
          i = close;
        } else {
          i = k; // a namespace alias
        }
        templateHead = false;
        continue;
      }
      if (x == "extern" && i + 1 < e && t_[i + 1] == "template") {
        while (i < e && t_[i] != ";")
          ++i; // declares an instantiation made elsewhere
        continue;
      }
      if (x == "template") {
        if (i + 1 < e && t_[i + 1] == "<") {
          i = matching(t_, i + 1);
          templateHead = true;
        } else if (i + 1 < e && (t_[i + 1] == "class" || t_[i + 1] == "struct")) {
          std::size_t k = i + 2;
          while (k < e && t_[k] != ";")
            ++k;
          instantiate(i + 2, k);
          i = k;
        }
        continue;
      }
      if (x == "class" || x == "struct") {
        i = classDefinition(i, e, templateHead);
        templateHead = false;
        continue;
      }
      if (x == "{") {
        i = matching(t_, i); // function bodies, initialisers, extern "C" blocks
        templateHead = false;
        continue;
      }
      if (x == ";")
        templateHead = false;
    }
  }

  // `class Name [final] [: bases] { … };` at tokens[i] == "class"; returns the last index used.
  std::size_t classDefinition(std::size_t i, std::size_t e, bool isTemplate) {
    Tokens head;
    std::size_t k = i + 1;
    while (k < e && t_[k] != "{" && t_[k] != ";" && t_[k] != "=")
      head.push_back(t_[k++]);
    if (k >= e || t_[k] != "{")
      return k - 1; // a declaration, `struct X *p;`, or an elaborated type in an expression
    head = withoutAttributes(head);
    if (head.empty() || !isIdentifier(head[0]))
      return matching(t_, k);
    const std::string name = head[0];
    bool vertex = false;
    auto colon = std::find(head.begin(), head.end(), ":");
    if (colon != head.end())
      for (const auto &base : splitTopLevel(Tokens(colon + 1, head.end())))
        vertex = vertex || isVertexBase(base);
    const std::size_t close = matching(t_, k);
    if (vertex) {
      ClassFound c;
      c.qualified = join(scopes_, name);
      c.isTemplate = isTemplate || (head.size() > 1 && head[1] == "<"); // partial specialisation
      c.fields = parseClassBody(t_, k + 1, std::min(close, e));
      classes_.push_back(std::move(c));
    }
    return close;
  }

  // `template class ns::Foo<float, 4>;` over tokens [b, e).
  void instantiate(std::size_t b, std::size_t e) {
    const Tokens inst = withoutAttributes(
        Tokens(t_.begin() + static_cast<long>(b), t_.begin() + static_cast<long>(e)));
    auto lt = std::find(inst.begin(), inst.end(), "<");
    if (lt == inst.end())
      return;
    std::string base = spell(inst, 0, static_cast<std::size_t>(lt - inst.begin()), true);
    const bool global = base.rfind("::", 0) == 0;
    if (global)
      base = base.substr(2);
    const std::string args =
        spell(inst, static_cast<std::size_t>(lt - inst.begin()), inst.size(), true);
    const std::string argsCpp =
        spell(inst, static_cast<std::size_t>(lt - inst.begin()), inst.size(), false);
    // Resolve the template name from the innermost enclosing namespace outwards.
    for (std::size_t depth = global ? 1 : scopes_.size() + 1; depth-- > 0;) {
      const std::string candidate = join(
          std::vector<std::string>(scopes_.begin(), scopes_.begin() + static_cast<long>(depth)),
          base);
      for (auto &c : classes_)
        if (c.isTemplate && c.qualified == candidate) {
          c.instantiated = true;
          instantiations_.push_back({candidate + args, "::" + candidate + argsCpp, c.fields});
          return;
        }
    }
  }

  Tokens t_;
  std::vector<std::string> scopes_;
  std::vector<ClassFound> classes_;
  std::vector<VertexClassDecl> instantiations_;
};

} // namespace

ParsedCodelets parseCodelets(const std::string &source) {
  return Scanner(tokenize(stripNonCode(source, nullptr))).run();
}

std::vector<std::string> quotedIncludes(const std::string &source) {
  std::vector<std::string> out;
  stripNonCode(source, &out);
  return out;
}

} // namespace poplar::codelet
