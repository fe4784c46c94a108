// popnn::ctc::Plan: value semantics over Plan::Impl, printing, and the batch-to-tile mapping
// shared by CTC loss and inference.
#include "CTCPlanImpl.hpp"

#include <ostream>
#include <sstream>

#include <poputil/OptionParsing.hpp>

namespace popnn::ctc {

Plan::Plan() : impl(std::make_unique<Impl>()) {}
Plan::~Plan() = default;
Plan::Plan(const Plan &other) : impl(std::make_unique<Impl>(*other.impl)) {}
Plan::Plan(Plan &&other) : impl(std::make_unique<Impl>(*other.impl)) {}
Plan &Plan::operator=(const Plan &other) {
  impl = std::make_unique<Impl>(*other.impl);
  return *this;
}
Plan &Plan::operator=(Plan &&other) {
  impl = std::make_unique<Impl>(*other.impl);
  return *this;
}
Plan::Plan(std::unique_ptr<Impl> i) : impl(std::move(i)) {}

bool operator<(const Plan &a, const Plan &b) noexcept {
  return a.getImpl().key() < b.getImpl().key();
}
bool operator==(const Plan &a, const Plan &b) noexcept {
  return a.getImpl().key() == b.getImpl().key();
}
bool operator!=(const Plan &a, const Plan &b) noexcept { return !(a == b); }

std::string Plan::Impl::toString() const {
  std::ostringstream os;
  os << "CTC " << (inference ? "inference" : "loss") << " plan: batchSize " << batchSize
     << ", maxTime " << maxTime;
  if (inference)
    os << ", beamWidth " << beamWidth;
  else
    os << ", maxLabelLength " << maxLabelLength;
  os << ", numClasses " << numClasses << ", inType " << inType << ", outType " << outType
     << ", partialsType " << partialsType << ", one batch entry per vertex over " << numTiles
     << " tiles";
  return os.str();
}

std::ostream &operator<<(std::ostream &o, const Plan &p) { return o << p.getImpl().toString(); }

void mapByBatch(poplar::Graph &graph, const poplar::Tensor &t, unsigned batchDim,
                const Plan::Impl &plan) {
  for (std::size_t b = 0; b < t.dim(batchDim); ++b)
    graph.setTileMapping(t.slice(b, b + 1, batchDim), plan.tileOf(b));
}

void parsePlanOptions(const std::string &fn, const poplar::OptionFlags &options,
                      Plan::Impl &impl) {
  poputil::OptionSpec(
      fn, {{"partialsType", poputil::OptionHandler::createWithEnum(
                                impl.partialsType, {{"float", poplar::FLOAT},
                                                    {"FLOAT", poplar::FLOAT},
                                                    {"half", poplar::HALF},
                                                    {"HALF", poplar::HALF}})},
           {"availableMemoryProportion", poputil::OptionHandler::createWithDouble(
                                             impl.availableMemoryProportion, 0.0, 1.0)}})
      .parse(options);
}

} // namespace popnn::ctc

namespace poputil {
template <> poplar::ProfileValue toProfileValue(const popnn::ctc::Plan &p) {
  return p.getImpl().toString();
}
} // namespace poputil
