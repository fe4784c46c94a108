#include "data/UnigramModel.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace tessera::bert {
namespace {

constexpr std::string_view kSpaceMark = "\xe2\x96\x81";        // U+2581
constexpr std::string_view kUnknownSurface = " \xe2\x81\x87 "; // " ⁇ "

// A minimal reader of protobuf's wire format: enough to walk ModelProto.
class WireReader {
public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return pos_ >= bytes_.size(); }
  std::size_t position() const { return pos_; }

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size())
        throw std::invalid_argument("a number runs past the end (truncated)");
      const auto byte = static_cast<std::uint8_t>(bytes_[pos_++]);
      value |= std::uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80))
        return value;
    }
    throw std::invalid_argument("a number is longer than 10 bytes");
  }
  std::string_view take(std::size_t n) {
    if (n > bytes_.size() - pos_)
      throw std::invalid_argument("a field of " + std::to_string(n) + " bytes runs past the end " +
                                  "(truncated)");
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  // Reads one field's key and value; `payload` is the bytes of a length-delimited or fixed field.
  struct Field {
    std::uint32_t number;
    std::uint32_t wireType;
    std::uint64_t value;
    std::string_view payload;
  };
  Field field() {
    const std::uint64_t key = varint();
    Field f{static_cast<std::uint32_t>(key >> 3), static_cast<std::uint32_t>(key & 7), 0, {}};
    if (f.number == 0)
      throw std::invalid_argument("field number 0");
    switch (f.wireType) {
    case 0:
      f.value = varint();
      break;
    case 1:
      f.payload = take(8);
      break;
    case 2:
      f.payload = take(static_cast<std::size_t>(varint()));
      break;
    case 5:
      f.payload = take(4);
      break;
    default:
      throw std::invalid_argument("unknown wire type " + std::to_string(f.wireType));
    }
    return f;
  }

private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

void putVarint(std::string &out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

std::size_t utf8Length(unsigned char lead) {
  if (lead < 0x80)
    return 1;
  if ((lead >> 5) == 0x6)
    return 2;
  if ((lead >> 4) == 0xe)
    return 3;
  if ((lead >> 3) == 0x1e)
    return 4;
  return 1; // a stray byte counts as one character
}

} // namespace

UnigramModel UnigramModel::parse(std::string_view modelBytes) {
  UnigramModel model;
  WireReader reader(modelBytes);
  while (!reader.done()) {
    const auto f = reader.field();
    if (f.number == 1 && f.wireType == 2) {
      UnigramPiece piece;
      WireReader inner(f.payload);
      while (!inner.done()) {
        const auto g = inner.field();
        if (g.number == 1 && g.wireType == 2)
          piece.text = g.payload;
        else if (g.number == 2 && g.wireType == 5)
          std::memcpy(&piece.score, g.payload.data(), 4);
        else if (g.number == 3 && g.wireType == 0) {
          if (g.value < 1 || g.value > 6)
            throw std::invalid_argument("piece " + std::to_string(model.pieces_.size()) +
                                        " has unknown type " + std::to_string(g.value));
          piece.type = static_cast<PieceType>(g.value);
        }
      }
      if (piece.text.empty())
        throw std::invalid_argument("piece " + std::to_string(model.pieces_.size()) + " is empty");
      model.pieces_.push_back(std::move(piece));
    } else if (f.number == 3 && f.wireType == 2) {
      WireReader inner(f.payload);
      while (!inner.done()) {
        const auto g = inner.field();
        if (g.number == 1 && g.wireType == 2)
          model.normalizerName_ = g.payload;
      }
    }
  }
  if (model.pieces_.empty())
    throw std::invalid_argument("it holds no pieces");
  float minScore = std::numeric_limits<float>::max();
  bool haveUnknown = false;
  for (std::size_t id = 0; id < model.pieces_.size(); ++id) {
    const UnigramPiece &p = model.pieces_[id];
    if (p.type == PieceType::Normal)
      minScore = std::min(minScore, p.score);
    if (p.type == PieceType::Unknown && !haveUnknown) {
      model.unknownId_ = static_cast<std::uint32_t>(id);
      haveUnknown = true;
    }
  }
  if (!haveUnknown)
    throw std::invalid_argument("it has no unknown piece");
  // SentencePiece's penalty for an unknown character: 10 below the least likely piece.
  model.unknownScore_ = (minScore == std::numeric_limits<float>::max() ? 0.0f : minScore) - 10.0f;
  model.buildTrie();
  return model;
}

std::string UnigramModel::withoutTrainingInput(std::string_view modelBytes) {
  std::string out;
  out.reserve(modelBytes.size());
  WireReader reader(modelBytes);
  while (!reader.done()) {
    const std::size_t start = reader.position();
    const auto f = reader.field();
    if (f.number == 2 && f.wireType == 2) {
      // trainer_spec: copy every field but 1 (input) and 2 (model_prefix).
      std::string spec;
      WireReader inner(f.payload);
      while (!inner.done()) {
        const std::size_t innerStart = inner.position();
        const auto g = inner.field();
        if (g.number != 1 && g.number != 2)
          spec.append(f.payload.substr(innerStart, inner.position() - innerStart));
      }
      putVarint(out, (2u << 3) | 2u);
      putVarint(out, spec.size());
      out += spec;
    } else {
      out.append(modelBytes.substr(start, reader.position() - start));
    }
  }
  return out;
}

void UnigramModel::buildTrie() {
  edges_.clear();
  nodePiece_.assign(1, -1);
  for (std::size_t id = 0; id < pieces_.size(); ++id) {
    if (pieces_[id].type != PieceType::Normal)
      continue;
    std::uint32_t node = 0;
    for (char c : pieces_[id].text) {
      const std::uint64_t key = (std::uint64_t{node} << 8) | static_cast<unsigned char>(c);
      auto [it, added] = edges_.try_emplace(key, static_cast<std::uint32_t>(nodePiece_.size()));
      if (added)
        nodePiece_.push_back(-1);
      node = it->second;
    }
    nodePiece_[node] = static_cast<std::int32_t>(id);
  }
}

std::vector<std::uint32_t> UnigramModel::encode(std::string_view text) const {
  // Normalise: whitespace runs → one "▁", leading and trailing whitespace dropped, "▁" prefixed.
  std::string normal;
  normal.reserve(text.size() + 8);
  bool pendingSpace = true;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      pendingSpace = true;
      continue;
    }
    if (pendingSpace)
      normal += kSpaceMark;
    pendingSpace = false;
    normal += c;
  }
  if (normal.empty())
    return {};

  // Viterbi: best[i] is the best score of a segmentation of normal[0, i).
  const std::size_t n = normal.size();
  constexpr float kUnreached = -std::numeric_limits<float>::infinity();
  std::vector<float> best(n + 1, kUnreached);
  std::vector<std::uint32_t> fromPos(n + 1, 0), fromId(n + 1, 0);
  best[0] = 0.0f;
  for (std::size_t i = 0; i < n;) {
    const std::size_t charLength =
        std::min(utf8Length(static_cast<unsigned char>(normal[i])), n - i);
    if (best[i] != kUnreached) {
      bool coveredChar = false;
      std::uint32_t node = 0;
      for (std::size_t j = i; j < n; ++j) {
        const auto it =
            edges_.find((std::uint64_t{node} << 8) | static_cast<unsigned char>(normal[j]));
        if (it == edges_.end())
          break;
        node = it->second;
        if (const std::int32_t id = nodePiece_[node]; id >= 0) {
          coveredChar = coveredChar || j + 1 == i + charLength;
          const float score = best[i] + pieces_[static_cast<std::size_t>(id)].score;
          if (score > best[j + 1]) {
            best[j + 1] = score;
            fromPos[j + 1] = static_cast<std::uint32_t>(i);
            fromId[j + 1] = static_cast<std::uint32_t>(id);
          }
        }
      }
      if (!coveredChar) {
        const float score = best[i] + unknownScore_;
        if (score > best[i + charLength]) {
          best[i + charLength] = score;
          fromPos[i + charLength] = static_cast<std::uint32_t>(i);
          fromId[i + charLength] = unknownId_;
        }
      }
    }
    i += charLength;
  }
  std::vector<std::uint32_t> ids;
  for (std::size_t end = n; end > 0; end = fromPos[end])
    ids.push_back(fromId[end]);
  std::reverse(ids.begin(), ids.end());
  // Runs of unknown characters read as one unknown token, as in SentencePiece.
  ids.erase(std::unique(ids.begin(), ids.end(),
                        [&](std::uint32_t a, std::uint32_t b) {
                          return a == unknownId_ && b == unknownId_;
                        }),
            ids.end());
  return ids;
}

std::string UnigramModel::decode(std::span<const std::uint32_t> ids) const {
  std::string text;
  for (std::uint32_t id : ids) {
    const UnigramPiece &piece = pieces_.at(id);
    if (piece.type == PieceType::Control)
      continue;
    if (piece.type == PieceType::Unknown) {
      text += kUnknownSurface;
      continue;
    }
    std::string_view rest = piece.text;
    for (std::size_t at; (at = rest.find(kSpaceMark)) != std::string_view::npos;) {
      text.append(rest.substr(0, at));
      text += ' ';
      rest.remove_prefix(at + kSpaceMark.size());
    }
    text.append(rest);
  }
  if (!text.empty() && text.front() == ' ')
    text.erase(text.begin());
  return text;
}

} // namespace tessera::bert
