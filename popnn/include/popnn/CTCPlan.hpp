// The plan shared by CTC loss (popnn/CTCLoss.hpp) and CTC beam-search inference
// (popnn/CTCInference.hpp): which tile holds each batch entry's data, labels, workspace and
// results. Made by ctc::plan or ctc_infer::plan; opaque otherwise (compare, order and print it).
#pragma once

#include <iosfwd>
#include <memory>

#include <poplar/ProfileValue.hpp>
#include <poputil/DebugInfo.hpp>

namespace popnn {
namespace ctc {

/// How CTC loss or inference maps its tensors and work onto tiles.
class Plan {
public:
  Plan();
  ~Plan();
  Plan(const Plan &other);
  Plan(Plan &&other);
  Plan &operator=(const Plan &other);
  Plan &operator=(Plan &&other);

  friend bool operator<(const Plan &a, const Plan &b) noexcept;
  friend bool operator==(const Plan &a, const Plan &b) noexcept;

  friend std::ostream &operator<<(std::ostream &o, const Plan &p);
  friend poplar::ProfileValue poputil::toProfileValue<>(const Plan &p);

  /// The implementation (popnn's own; not part of the public surface).
  class Impl;
  Impl &getImpl() const { return *impl; }
  Plan(std::unique_ptr<Impl> impl);

private:
  std::unique_ptr<Impl> impl;
};

bool operator<(const Plan &a, const Plan &b) noexcept;
bool operator==(const Plan &a, const Plan &b) noexcept;
bool operator!=(const Plan &a, const Plan &b) noexcept;

} // namespace ctc
} // namespace popnn
