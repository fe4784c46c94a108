// PrintTensor's text, following what Poplar prints with its default PrintTensorFmt
// (summarise beyond 1000 elements showing 3 at each edge, wrap lines past 75 characters,
// 8 significant digits, automatic float format, ' ' between values, '[' and ']').
//
// Rules matched, as seen in Poplar's tutorials and in the PopART / PopTorch tests that check
// PrintTensor's output: every value of one tensor uses one format and is right-aligned to the
// widest ("[ 6  9 12]"); floats show 8 significant digits in fixed notation, the number of
// decimals set by the largest magnitude ("[1.0000000 1.5000000]", "0.0000000"); scientific
// notation keeps 8 digits in the mantissa ("1.4962566e+00"); rank 1 stays on the title line and
// higher ranks put each innermost row on its own line, indented one space per level, with the
// outer closing bracket on a line of its own; a wrapped row continues two columns right of
// its opening bracket's indent, the separator left at the end of the broken line.
#include "engine/TensorFormatter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "core/ElementConversion.hpp"

namespace poplar::engine {

namespace {

/// Poplar's PrintTensorFmt defaults.
struct Format {
  std::size_t summariseThreshold = 1000;
  std::size_t edgeItems = 3;
  std::size_t maxLineWidth = 75;
  int digits = 8;
  char separator = ' ';
  char open = '[';
  char close = ']';
};

/// Marks the gap a summarised dimension shows as "...".
constexpr std::size_t kGap = static_cast<std::size_t>(-1);

/// The indices of a dimension of `size` that are shown: all of them, or the first and last
/// `edge` around a gap when the tensor is summarised and the dimension is long enough.
std::vector<std::size_t> shownIndices(std::size_t size, bool summarise, std::size_t edge) {
  std::vector<std::size_t> shown;
  if (!summarise || size <= 2 * edge) {
    for (std::size_t i = 0; i < size; ++i)
      shown.push_back(i);
    return shown;
  }
  for (std::size_t i = 0; i < edge; ++i)
    shown.push_back(i);
  shown.push_back(kGap);
  for (std::size_t i = size - edge; i < size; ++i)
    shown.push_back(i);
  return shown;
}

/// Turns element values into text, one style for the whole tensor.
class ValueText {
public:
  ValueText(Type type, const unsigned char *data, const Format &format,
            const std::vector<std::size_t> &shownElements)
      : type_(type), data_(data), format_(format) {
    if (!type.isFloatingPoint())
      return;
    double largest = 0, smallestNonZero = 0;
    for (std::size_t e : shownElements) {
      const double v = std::fabs(core::elementAsDouble(type, data, e));
      if (!std::isfinite(v))
        continue;
      largest = std::max(largest, v);
      if (v > 0 && (smallestNonZero == 0 || v < smallestNonZero))
        smallestNonZero = v;
    }
    // Fixed notation cannot show 8 significant digits of very large or very small values.
    scientific_ = largest >= 1e8 || (smallestNonZero > 0 && smallestNonZero < 1e-4);
    const int integerDigits =
        largest < 1 ? 1 : static_cast<int>(std::floor(std::log10(largest))) + 1;
    decimals_ = std::max(0, format.digits - integerDigits);
  }

  std::string operator()(std::size_t element) const {
    switch (type_.id()) {
    case TypeId::Bool:
      return data_[element] ? "true" : "false";
    case TypeId::LongLong: {
      std::int64_t v;
      std::memcpy(&v, data_ + element * sizeof v, sizeof v);
      return std::to_string(v);
    }
    case TypeId::UnsignedLongLong: {
      std::uint64_t v;
      std::memcpy(&v, data_ + element * sizeof v, sizeof v);
      return std::to_string(v);
    }
    default:
      break;
    }
    const double v = core::elementAsDouble(type_, data_, element);
    if (!type_.isFloatingPoint())
      return std::to_string(static_cast<std::int64_t>(v));
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v < 0 ? "-inf" : "inf";
    std::ostringstream os;
    if (scientific_)
      os << std::scientific << std::setprecision(format_.digits - 1) << v;
    else
      os << std::fixed << std::setprecision(decimals_) << v;
    return os.str();
  }

private:
  Type type_;
  const unsigned char *data_;
  const Format &format_;
  bool scientific_ = false;
  int decimals_ = 0;
};

/// Writes nested brackets, tracking the column so long rows wrap.
class Writer {
public:
  Writer(const std::vector<std::size_t> &shape, const Format &format, bool summarise)
      : shape_(shape), format_(format), summarise_(summarise), strides_(shape.size(), 1) {
    for (std::size_t d = shape.size(); d-- > 1;)
      strides_[d - 1] = strides_[d] * shape[d];
  }

  /// Every element `write` will show, in order (so the text style can look at all of them).
  std::vector<std::size_t> shownElements() const {
    std::vector<std::size_t> out;
    collect(0, 0, out);
    return out;
  }

  void write(std::string &out, const ValueText &text, std::size_t width) {
    out_ = &out;
    text_ = &text;
    width_ = width;
    column_ = out.size() - std::min(out.size(), out.rfind('\n') + 1);
    level(0, 0);
  }

private:
  void collect(std::size_t dim, std::size_t base, std::vector<std::size_t> &out) const {
    if (dim == shape_.size()) {
      out.push_back(base);
      return;
    }
    for (std::size_t i : shownIndices(shape_[dim], summarise_, format_.edgeItems))
      if (i != kGap)
        collect(dim + 1, base + i * strides_[dim], out);
  }

  void put(const std::string &s) {
    *out_ += s;
    column_ += s.size();
  }
  void newLine(std::size_t indent) {
    *out_ += '\n';
    *out_ += std::string(indent, ' ');
    column_ = indent;
  }

  void level(std::size_t dim, std::size_t base) {
    const auto shown = shownIndices(shape_[dim], summarise_, format_.edgeItems);
    put(std::string(1, format_.open));
    if (dim + 1 == shape_.size()) {
      row(shown, base, dim);
      return;
    }
    for (std::size_t i : shown) {
      newLine(dim + 1);
      if (i == kGap)
        put("...");
      else
        level(dim + 1, base + i * strides_[dim]);
    }
    newLine(dim);
    put(std::string(1, format_.close));
  }

  /// The innermost dimension: values on one line, wrapped past maxLineWidth.
  void row(const std::vector<std::size_t> &shown, std::size_t base, std::size_t dim) {
    for (std::size_t k = 0; k < shown.size(); ++k) {
      std::string item = shown[k] == kGap ? "..." : (*text_)(base + shown[k]);
      if (item.size() < width_)
        item.insert(0, width_ - item.size(), ' ');
      if (k) {
        put(std::string(1, format_.separator));
        const std::size_t closing = k + 1 == shown.size() ? 1 : 0;
        if (format_.maxLineWidth && column_ + item.size() + closing > format_.maxLineWidth)
          newLine(dim + 2);
      }
      put(item);
    }
    put(std::string(1, format_.close));
  }

  const std::vector<std::size_t> &shape_;
  const Format &format_;
  bool summarise_;
  std::vector<std::size_t> strides_;
  std::string *out_ = nullptr;
  const ValueText *text_ = nullptr;
  std::size_t width_ = 0, column_ = 0;
};

} // namespace

std::string formatTensor(const std::string &title, Type type, const std::vector<std::size_t> &shape,
                         const unsigned char *data) {
  const Format format;
  std::size_t elements = 1;
  for (std::size_t d : shape)
    elements *= d;
  std::string out = title.empty() ? std::string() : title + ": ";
  if (shape.empty()) {
    out += ValueText(type, data, format, {0})(0);
    return out;
  }
  const bool summarise = format.summariseThreshold && elements > format.summariseThreshold;
  Writer writer(shape, format, summarise);
  const auto shown = writer.shownElements();
  const ValueText text(type, data, format, shown);
  std::size_t width = 0;
  for (std::size_t e : shown)
    width = std::max(width, text(e).size());
  writer.write(out, text, width);
  return out;
}

} // namespace poplar::engine
