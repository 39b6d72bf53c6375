// Lowering: a graph becomes, for one bucket, a list of steps over one arena. The planner gives every
// value its offset, each op is checked against its values and weights (messages name the op and the
// numbers) and resolved into a step holding offsets, weight pointers and the kernel chosen once, so
// that a run is a loop over steps that allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "engine/bucket_plan.h"
#include "graph/graph.h"
#include "kernels/attention.h"
#include "kernels/embed.h"
#include "kernels/gelu.h"
#include "kernels/gemm.h"
#include "kernels/isa.h"
#include "kernels/layer_norm.h"
#include "kernels/markers.h"
#include "kernels/mean_pool.h"
#include "kernels/rope.h"
#include "plan/layout.h"
#include "util/status.h"

namespace laya {

// One lowered op per struct; offsets are in f32 elements from the arena's start. Row counts are not
// here: a step runs on the rows of the batch at hand, whatever the bucket. kKind names the step's kind
// in profiles (StepProfile::kind_name reads it from every alternative of Step, so a new step cannot
// go unnamed).
namespace steps {

struct Embed {
  static constexpr const char* kKind = "embed";
  kernels::Kernel<kernels::EmbedFn> kernel;
  kernels::MatrixRef table;
  size_t out = 0;
};
struct LayerNorm {
  static constexpr const char* kKind = "layer_norm";
  kernels::Kernel<kernels::LayerNormFn> kernel;
  size_t x = 0;
  size_t out = 0;
  Rows rows = Rows::kTokens;
  int64_t width = 0;
  const float* w = nullptr;
  const float* b = nullptr;
  double eps = 0.0;
};
struct Gemm {
  static constexpr const char* kKind = "gemm";
  kernels::Kernel<kernels::GemmFn> kernel;
  size_t a = 0;
  size_t out = 0;
  Rows rows = Rows::kTokens;
  kernels::MatrixRef w;
  const float* bias = nullptr;
  Epilogue epilogue = Epilogue::kNone;
};
struct Rope {
  static constexpr const char* kKind = "rope";
  kernels::Kernel<kernels::RopeFn> kernel;
  size_t qkv = 0;
  int64_t heads = 0;
  const kernels::RopeTable* table = nullptr;  // kept alive by the Lowered holding the step
};
struct Attention {
  static constexpr const char* kKind = "attention";
  kernels::Kernel<kernels::AttentionFn> kernel;
  size_t qkv = 0;
  size_t out = 0;
  int64_t heads = 0;
  int64_t window = -1;  // < 0: every key of the sequence
};
struct GeGlu {
  static constexpr const char* kKind = "geglu";
  kernels::Kernel<kernels::GeGluFn> kernel;
  size_t x = 0;
  size_t out = 0;
  Rows rows = Rows::kTokens;
  int64_t n = 0;  // out's width
};
struct AddType {
  static constexpr const char* kKind = "add_type";
  kernels::Kernel<kernels::AddTypeFn> kernel;
  kernels::MatrixRef table;
  size_t h = 0;
};
struct GatherMarkers {
  static constexpr const char* kKind = "gather_markers";
  kernels::Kernel<kernels::GatherMarkersFn> kernel;
  size_t h = 0;
  size_t out = 0;
  int64_t width = 0;
};
struct ActFeatures {
  static constexpr const char* kKind = "act_features";
  kernels::Kernel<kernels::ActFeaturesFn> kernel;
  size_t h = 0;
  size_t logits = 0;
  size_t out = 0;
  int64_t width = 0;  // h's width; out is 4 wider
};
struct MeanPool {
  static constexpr const char* kKind = "mean_pool";
  kernels::Kernel<kernels::MeanPoolFn> kernel;
  size_t h = 0;
  size_t out = 0;
  int64_t width = 0;
};

}  // namespace steps

using Step = std::variant<steps::Embed, steps::LayerNorm, steps::Gemm, steps::Rope, steps::Attention,
                          steps::GeGlu, steps::AddType, steps::GatherMarkers, steps::ActFeatures,
                          steps::MeanPool>;

const char* kernel_name(const Step& step);

// A graph lowered for one bucket.
struct Lowered {
  RowCounts bucket;
  Layout layout;
  std::vector<Step> steps;
  std::vector<std::shared_ptr<const kernels::RopeTable>> rope_tables;  // one per theta, for Rope steps
  size_t scratch_floats = 0;  // the most any step needs
};

// What a weight table holds. kBound: the CPU binder's table, every weight's data present and the
// vectors converted to aligned F32. kPlanned: the header's view (ModelPlan), dtypes as stored and
// data possibly elsewhere (on a GPU), so only names, shapes and dtypes can be checked.
enum class WeightForm { kBound, kPlanned };

// Checks everything about a graph that does not depend on the bucket: value and weight ids in
// range, shapes of values against each other and against the weights, bound vectors as F32,
// every value written before it is read, outputs of the right kind. Weight problems are
// invalid_checkpoint errors, graph problems internal ones.
Status check_graph(const Graph& graph, const WeightTable& weights, WeightForm form = WeightForm::kBound);


// RoPE tables shared between the buckets of one executor: a bucket reuses a table of its theta that
// covers its positions, so tables exist once per theta and size rather than once per bucket.
using RopeTableCache = std::vector<std::shared_ptr<const kernels::RopeTable>>;

// Lowers a checked graph (check_graph) planned for a bucket (plan_bucket) with the kernels of
// `isa`. `rope_cache` (optional) supplies tables and receives the ones made.
Result<std::unique_ptr<Lowered>> lower(const Graph& graph, const WeightTable& weights, BucketPlan plan,
                                       kernels::Isa isa, RopeTableCache* rope_cache = nullptr);

// The same from scratch, for tools and tests: checks the graph, plans the bucket, lowers.
Result<std::unique_ptr<Lowered>> lower(const Graph& graph, const WeightTable& weights,
                                       const RowCounts& bucket, kernels::Isa isa,
                                       RopeTableCache* rope_cache = nullptr);

}  // namespace laya
