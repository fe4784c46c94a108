// popops casts to and from QUARTER, one vertex per run of the output on its tile:
//   popops::CastToQuarter<float|half>    out[i] = encode(in[i]) under the output's metadata
//   popops::CastFromQuarter<float|half>  out[i] = decode(in[i]) under the input's metadata
//   popops::CastQuarterToQuarter         re-encodes under another format or scale
// Fields are Poplar's codelet types (<poplar/QuarterFloat.hpp>): `quarter` elements and the
// packed `MetadataType`; the arithmetic is tessera::quarter's, the same the host conversions
// use, so tiles and host agree bit for bit.
// A scalar loop: a byte table lookup would not beat it for the sizes casts see.
#include <poplar/Half.hpp>
#include <poplar/QuarterFloat.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/QuarterCodec.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

/// This worker's contiguous share [begin, end) of n elements.
struct WorkerRange {
  std::size_t begin, end;
};
WorkerRange share(std::size_t n, unsigned workerId, unsigned workers) {
  return {n * workerId / workers, n * (workerId + 1) / workers};
}

template <class T> class CastToQuarter : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<T>> in;
  poplar::Output<poplar::Vector<poplar::quarter>> out;
  poplar::Input<poplar::MetadataType> metadata;

  bool compute(unsigned workerId) {
    const auto r = share(out.size(), workerId, numWorkers());
    const unsigned char md = *metadata;
    for (std::size_t i = r.begin; i < r.end; ++i)
      out[i].value = tessera::quarter::encode(static_cast<float>(in[i]), md);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size(); }
};

template <class T> class CastFromQuarter : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<poplar::quarter>> in;
  poplar::Output<poplar::Vector<T>> out;
  poplar::Input<poplar::MetadataType> metadata;

  bool compute(unsigned workerId) {
    const auto r = share(out.size(), workerId, numWorkers());
    const unsigned char md = *metadata;
    for (std::size_t i = r.begin; i < r.end; ++i)
      out[i] = T(tessera::quarter::decode(in[i].value, md));
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size(); }
};

class CastQuarterToQuarter : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<poplar::quarter>> in;
  poplar::Output<poplar::Vector<poplar::quarter>> out;
  poplar::Input<poplar::MetadataType> inMetadata;
  poplar::Input<poplar::MetadataType> outMetadata;

  bool compute(unsigned workerId) {
    const auto r = share(out.size(), workerId, numWorkers());
    const unsigned char from = *inMetadata, to = *outMetadata;
    for (std::size_t i = r.begin; i < r.end; ++i)
      out[i].value = tessera::quarter::encode(tessera::quarter::decode(in[i].value, from), to);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 2 * out.size(); }
};

template <class T> void registerCasts(const char *to, const char *from) {
  tessera::VertexTypeBuilder<CastToQuarter<T>>(to)
      .field("in", &CastToQuarter<T>::in)
      .field("out", &CastToQuarter<T>::out)
      .field("metadata", &CastToQuarter<T>::metadata)
      .add();
  tessera::VertexTypeBuilder<CastFromQuarter<T>>(from)
      .field("in", &CastFromQuarter<T>::in)
      .field("out", &CastFromQuarter<T>::out)
      .field("metadata", &CastFromQuarter<T>::metadata)
      .add();
}

} // namespace

void registerCastQuarterVertices() {
  registerCasts<float>("popops::CastToQuarter<float>", "popops::CastFromQuarter<float>");
  registerCasts<poplar::half>("popops::CastToQuarter<half>", "popops::CastFromQuarter<half>");
  tessera::VertexTypeBuilder<CastQuarterToQuarter>("popops::CastQuarterToQuarter")
      .field("in", &CastQuarterToQuarter::in)
      .field("out", &CastQuarterToQuarter::out)
      .field("inMetadata", &CastQuarterToQuarter::inMetadata)
      .field("outMetadata", &CastQuarterToQuarter::outMetadata)
      .add();
}

} // namespace tessera::codelets::popops
