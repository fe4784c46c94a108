// popops::MapExpr<T> and MapExpr2D<T>: run a fused element-wise expression (MapExprBytecode.hpp)
// over one contiguous run of their output (or each of a list of runs), chunk by chunk, so every
// input and output byte is touched once and the intermediates stay in a few KiB of local registers.
#include <algorithm>
#include <cstring>

#include <poplar/Vertex.hpp>

#include "popops/MapExprBytecode.hpp"
#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

using namespace mapexpr;

/// The kernel table is taken once, when the vertex types register.
const KernelFn *gKernels = nullptr;

/// One register value from a scalar input element (converted as a load would).
std::uint32_t scalarInputBits(const void *p, InputField field) {
  switch (field) {
  case InputField::In4: {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case InputField::In2: {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    const float f = poplar::halfBitsToFloat(h);
    std::uint32_t v;
    std::memcpy(&v, &f, 4);
    return v;
  }
  case InputField::In1:
    return *static_cast<const std::uint8_t *>(p) != 0 ? 1u : 0u;
  case InputField::In2Short: {
    std::int16_t h;
    std::memcpy(&h, p, 2);
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(h));
  }
  case InputField::In2UnsignedShort: {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return h;
  }
  }
  return 0;
}

/// Runs the expression program `code` over one contiguous run of `n` output elements at
/// `outBase`; input(field, index) gives the data of the `index`th piece of an input field.
template <class T, class InputData>
void runExpr(const std::uint32_t *w, const std::uint32_t *consts, InputData input, T *outData,
             std::size_t n) {
  const std::uint32_t chunk = w[1], numRegs = w[2], numInputs = w[3];
  const std::uint32_t numPrologue = w[4], numBody = w[5];
  const std::uint32_t *inputs = w + kHeaderWords;
  const std::uint32_t *prologue = inputs + numInputs * kInputWords;
  const std::uint32_t *body = prologue + numPrologue * kPrologueWords;
  const std::size_t begin = 0, end = n;
  if (begin >= end)
    return;

  alignas(64) unsigned char regs[kRegisterBytes];
  const std::size_t regBytes = std::size_t(chunk) * 4;
  const std::uint32_t outSlot = numRegs + numInputs;
  void *slot[kRegisterBytes / (kChunkGrain * 4) + 64];
  for (std::uint32_t r = 0; r < numRegs; ++r)
    slot[r] = regs + r * regBytes;

  // Input bases and how far each chunk moves them: an element's bytes, or 0 for scalars and for
  // periodic inputs, which are placed chunk by chunk below (their period stays in cache).
  const unsigned char *base[64];
  std::size_t width[64], elementBytes[64], period[64], phase[64];
  std::uint32_t periodic[64], numPeriodic = 0;
  for (std::uint32_t k = 0; k < numInputs; ++k) {
    const std::uint32_t *desc = inputs + k * kInputWords;
    const auto field = static_cast<InputField>(desc[0]);
    base[k] = input(field, desc[1]);
    elementBytes[k] = field == InputField::In4 ? 4 : field == InputField::In1 ? 1 : 2;
    width[k] = elementBytes[k];
    const auto reading = static_cast<InputReading>(desc[2]);
    if (reading == InputReading::Scalar)
      width[k] = 0;
    if (reading == InputReading::Periodic && desc[3] != 0) {
      width[k] = 0;
      period[k] = desc[3];
      phase[k] = desc[4] % desc[3];
      periodic[numPeriodic++] = k;
    }
    slot[numRegs + k] = const_cast<unsigned char *>(base[k]);
  }

  // Constants and scalar inputs are broadcast into their registers once per call.
  for (std::uint32_t p = 0; p < numPrologue; ++p) {
    const std::uint32_t reg = prologue[p * kPrologueWords];
    const auto kind = static_cast<PrologueKind>(prologue[p * kPrologueWords + 1]);
    const std::uint32_t index = prologue[p * kPrologueWords + 2];
    std::uint32_t bits;
    if (kind == PrologueKind::Const)
      bits = consts[index];
    else
      bits = scalarInputBits(base[index], static_cast<InputField>(inputs[index * kInputWords]));
    // Only as much as the first chunk reads.
    std::uint32_t *r = static_cast<std::uint32_t *>(slot[reg]);
    const std::size_t fill = std::min<std::size_t>(chunk, end - begin);
    for (std::size_t i = 0; i < fill; ++i)
      r[i] = bits;
  }

  unsigned char *outBase = reinterpret_cast<unsigned char *>(outData);
  for (std::size_t at = begin, len = 0; at < end; at += len) {
    len = std::min<std::size_t>(chunk, end - at);
    for (std::uint32_t k = 0; k < numInputs; ++k)
      slot[numRegs + k] = const_cast<unsigned char *>(base[k] + at * width[k]);
    // A periodic input is read in place: the chunk ends where its period wraps.
    for (std::uint32_t p = 0; p < numPeriodic; ++p) {
      const std::uint32_t k = periodic[p];
      const std::size_t within = (phase[k] + at) % period[k];
      len = std::min(len, period[k] - within);
      slot[numRegs + k] = const_cast<unsigned char *>(base[k] + within * elementBytes[k]);
    }
    slot[outSlot] = outBase + at * sizeof(T);
    // Ask for the next chunk now, so memory keeps streaming while this one is computed.
    if (at + len < end) {
      const std::size_t next = std::min<std::size_t>(chunk, end - at - len);
      for (std::uint32_t k = 0; k < numInputs; ++k)
        for (std::size_t b = 0; b < next * width[k]; b += 64)
          __builtin_prefetch(base[k] + (at + len) * width[k] + b, 0);
      for (std::size_t b = 0; b < next * sizeof(T); b += 64)
        __builtin_prefetch(outBase + (at + len) * sizeof(T) + b, 1);
    }
    for (std::uint32_t i = 0; i < numBody; ++i) {
      const std::uint32_t *ins = body + i * kInstrWords;
      gKernels[ins[0]](slot[ins[1]], slot[ins[2]], slot[ins[3]], slot[ins[4]], len);
    }
  }
}

template <class T> class MapExpr : public poplar::MultiVertex {
public:
  poplar::Vector<poplar::Input<poplar::Vector<std::uint32_t>>> in4;
  poplar::Vector<poplar::Input<poplar::Vector<std::uint16_t>>> in2;
  poplar::Vector<poplar::Input<poplar::Vector<std::uint8_t>>> in1;
  poplar::Output<poplar::Vector<T>> out;
  poplar::Vector<std::uint32_t> code;
  poplar::Vector<std::uint32_t> consts;

  bool compute(unsigned workerId) {
    // A tile's workers run one after another on one host thread, so splitting the run between
    // them buys nothing and repeats the set-up: worker 0 maps the whole run (each element is
    // computed alone, so the result is the same either way).
    if (workerId != 0)
      return true;
    runExpr<T>(
        code.data(), consts.data(),
        [&](InputField field, std::uint32_t index) -> const unsigned char * {
          return field == InputField::In4
                     ? reinterpret_cast<const unsigned char *>(in4[index].data())
                 : field == InputField::In1
                     ? in1[index].data()
                     : reinterpret_cast<const unsigned char *>(in2[index].data());
        },
        out.data(), out.size());
    return true;
  }

  std::uint64_t cycleEstimate() const {
    const std::uint64_t instrs = code.size() > 5 ? code[5] : 1;
    return 50 + instrs * (out.size() / 4 + 10);
  }
};

/// popops::MapExpr2D<T>: the same program over many runs of the output, one vertex per tile
/// instead of one per run (layouts such as convolution weights or strided views come in many
/// short runs). Region r's input pieces are the r-th block of each field's list: field f's
/// pieces [r · n_f, (r + 1) · n_f) with n_f = (pieces of f) / regions.
template <class T> class MapExpr2D : public poplar::MultiVertex {
public:
  poplar::Vector<poplar::Input<poplar::Vector<std::uint32_t>>> in4;
  poplar::Vector<poplar::Input<poplar::Vector<std::uint16_t>>> in2;
  poplar::Vector<poplar::Input<poplar::Vector<std::uint8_t>>> in1;
  poplar::Vector<poplar::Output<poplar::Vector<T>>> out;
  poplar::Vector<std::uint32_t> code;
  poplar::Vector<std::uint32_t> consts;

  bool compute(unsigned workerId) {
    if (workerId != 0) // as MapExpr: the workers would run one after another anyway
      return true;
    const std::size_t regions = out.size();
    if (regions == 0)
      return true;
    const std::size_t n4 = in4.size() / regions, n2 = in2.size() / regions,
                      n1 = in1.size() / regions;
    for (std::size_t r = 0; r < regions; ++r)
      runExpr<T>(
          code.data(), consts.data(),
          [&](InputField field, std::uint32_t index) -> const unsigned char * {
            return field == InputField::In4
                       ? reinterpret_cast<const unsigned char *>(in4[r * n4 + index].data())
                   : field == InputField::In1
                       ? in1[r * n1 + index].data()
                       : reinterpret_cast<const unsigned char *>(in2[r * n2 + index].data());
          },
          out[r].data(), out[r].size());
    return true;
  }

  std::uint64_t cycleEstimate() const {
    const std::uint64_t instrs = code.size() > 5 ? code[5] : 1;
    std::uint64_t elements = 0;
    for (std::size_t r = 0; r < out.size(); ++r)
      elements += out[r].size();
    return 50 + instrs * (elements / 4 + 10 * out.size());
  }
};

template <class V> void registerMapVertex(const char *name) {
  tessera::VertexTypeBuilder<V>(name)
      .field("in4", &V::in4)
      .field("in2", &V::in2)
      .field("in1", &V::in1)
      .field("out", &V::out)
      .field("code", &V::code)
      .field("consts", &V::consts)
      .add();
}

template <class T> void registerMapExpr(const char *name, const char *name2d) {
  registerMapVertex<MapExpr<T>>(name);
  registerMapVertex<MapExpr2D<T>>(name2d);
}

} // namespace

void registerMapExprVertices() {
  gKernels = kernelTable();
  registerMapExpr<float>("popops::MapExpr<float>", "popops::MapExpr2D<float>");
  registerMapExpr<poplar::half>("popops::MapExpr<half>", "popops::MapExpr2D<half>");
  registerMapExpr<int>("popops::MapExpr<int>", "popops::MapExpr2D<int>");
  registerMapExpr<unsigned>("popops::MapExpr<unsigned int>", "popops::MapExpr2D<unsigned int>");
  registerMapExpr<bool>("popops::MapExpr<bool>", "popops::MapExpr2D<bool>");
  registerMapExpr<short>("popops::MapExpr<short>", "popops::MapExpr2D<short>");
  registerMapExpr<unsigned short>("popops::MapExpr<unsigned short>",
                                  "popops::MapExpr2D<unsigned short>");
}

} // namespace tessera::codelets::popops
