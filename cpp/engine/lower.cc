// Lowering a graph's ops to CPU steps (see lower.h).
#include "engine/lower.h"

#include <type_traits>
#include <variant>

namespace laya {

Result<std::unique_ptr<Lowered>> lower(const Graph& g, const WeightTable& weights, const RowCounts& bucket,
                                       kernels::Isa isa, RopeTableCache* rope_cache, kernels::Compute compute) {
  LAYA_RETURN_IF_ERROR(check_graph(g, weights));
  LAYA_ASSIGN_OR_RETURN(BucketPlan plan, plan_bucket(g, bucket));
  return lower(g, weights, std::move(plan), isa, rope_cache, compute);
}

Result<std::unique_ptr<Lowered>> lower(const Graph& g, const WeightTable& weights, BucketPlan plan,
                                       kernels::Isa isa, RopeTableCache* rope_cache, kernels::Compute compute) {
  auto out = std::make_unique<Lowered>();
  out->bucket = plan.bucket;
  out->layout = std::move(plan.layout);
  LowerContext context(g, weights, out->layout, out->bucket, kernels::kernel_table(isa), rope_cache,
                       compute);
  out->steps.reserve(g.ops.size());
  for (const Op& op : g.ops) {
    out->steps.push_back(std::visit(
        [&](const auto& o) -> Step { return StepFor<std::decay_t<decltype(o)>>::lower(o, context); }, op));
  }
  out->rope_tables = context.take_rope_tables();
  out->scratch_floats = context.scratch_floats();
  out->shared_floats = context.shared_floats();
  return out;
}

}  // namespace laya
