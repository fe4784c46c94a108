// gcl's enumerations and groups as text: CollectiveOperator both ways (GCL's stream operators),
// CommGroup for messages and logs.
#include <array>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include <gcl/Collectives.hpp>
#include <poputil/exceptions.hpp>

namespace gcl {
namespace {

constexpr std::array<std::string_view, 9> kOperatorNames = {
    "ADD", "MEAN", "MUL", "MIN", "MAX", "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOCAL"};
static_assert(kOperatorNames.size() == std::size_t(CollectiveOperator::LOCAL) + 1,
              "one name per CollectiveOperator");

constexpr std::array<std::string_view, 3> kGroupTypeNames = {"ALL", "CONSECUTIVE", "ORTHOGONAL"};
static_assert(kGroupTypeNames.size() == std::size_t(CommGroupType::ORTHOGONAL) + 1,
              "one name per CommGroupType");

} // namespace

std::ostream &operator<<(std::ostream &os, const CollectiveOperator &op) {
  const auto i = static_cast<std::size_t>(op);
  if (i < kOperatorNames.size())
    return os << kOperatorNames[i];
  return os << "CollectiveOperator(" << i << ")";
}

std::istream &operator>>(std::istream &is, CollectiveOperator &op) {
  std::string token;
  if (!(is >> token))
    return is;
  for (std::size_t i = 0; i < kOperatorNames.size(); ++i)
    if (token == kOperatorNames[i]) {
      op = static_cast<CollectiveOperator>(i);
      return is;
    }
  std::string valid;
  for (const auto name : kOperatorNames)
    valid += (valid.empty() ? "" : ", ") + std::string(name);
  throw poputil::poplibs_error("gcl::operator>>(std::istream &, CollectiveOperator &): '" + token +
                               "' is not a collective operator; expected one of " + valid);
}

std::ostream &operator<<(std::ostream &os, const CommGroup &group) {
  const auto type = static_cast<std::size_t>(group.mReplicaGroupType);
  os << "CommGroup(type=";
  if (type < kGroupTypeNames.size())
    os << kGroupTypeNames[type];
  else
    os << "CommGroupType(" << type << ")";
  return os << ", size=" << group.mReplicaGroupSize << ", stride=" << group.mReplicaGroupStride
            << ")";
}

} // namespace gcl
