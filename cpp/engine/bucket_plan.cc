#include "engine/bucket_plan.h"

#include <algorithm>
#include <limits>
#include <string>
#include <variant>


namespace laya {

Status check_bucket(const Graph& g, const RowCounts& bucket) {
  constexpr uint64_t kLimit = std::numeric_limits<size_t>::max() / sizeof(float) / 2;
  uint64_t total = 0;
  for (const Shape& s : g.values) {
    const uint64_t rows = static_cast<uint64_t>(bucket.of(s.rows));
    const uint64_t width = static_cast<uint64_t>(s.width);
    if (rows != 0 && width > (kLimit - total) / rows) {
      return out_of_memory("lowering for " + std::to_string(bucket.tokens) + " tokens, " +
                           std::to_string(bucket.seqs) + " sequences and " + std::to_string(bucket.markers) +
                           " markers: the activations need more than " + std::to_string(kLimit * sizeof(float)) +
                           " bytes");
    }
    total += rows * width;
  }
  return {};
}

Result<BucketPlan> plan_bucket(const Graph& graph, const RowCounts& bucket) {
  LAYA_RETURN_IF_ERROR(check_bucket(graph, bucket));
  return BucketPlan{bucket, layout(graph, bucket)};
}

}  // namespace laya
