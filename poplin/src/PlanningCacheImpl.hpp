// The state behind poplin::PlanningCache: matMul plans and convolution plans by key.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <poplin/MatMulPlan.hpp>

#include "ConvPlan.hpp"

namespace poplin {

class PlanningCacheImpl {
public:
  std::mutex mutex;
  std::map<std::string, MatMulPlan> plans;
  std::map<std::string, detail::ConvPlan> convPlans;
};

} // namespace poplin
