// The pooling operations popnn::pooling supports.
#pragma once

namespace popnn {

enum class PoolingType { MAX, AVG, SUM };

} // namespace popnn
