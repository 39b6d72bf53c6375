// The CPU backend's lowered ops. Each step is one op resolved for one bucket: arena offsets in f32
// elements, weight pointers and the kernel chosen once from the ISA's table. A step carries its own
// lowering (lower, from its op) and its run (run, on the batch at hand), so one block per op in
// steps.cc is all the CPU backend knows of it. Row counts are not here: a step runs on the rows of
// the batch at hand, whatever the bucket. kKind names the step's kind in profiles.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "engine/thread_pool.h"
#include "graph/graph.h"
#include "kernels/act_features.h"
#include "kernels/add_type.h"
#include "kernels/attention.h"
#include "kernels/compute.h"
#include "kernels/embed.h"
#include "kernels/gather_markers.h"
#include "kernels/geglu.h"
#include "kernels/gemm.h"
#include "kernels/int8_gemm.h"
#include "kernels/kernel_table.h"
#include "kernels/layer_norm.h"
#include "kernels/mean_pool.h"
#include "kernels/packing.h"
#include "kernels/rope.h"
#include "plan/layout.h"

namespace laya {

// What lowering an op for one bucket reads, and the scratch and RoPE tables it asks for.
class LowerContext {
 public:
  using RopeTables = std::vector<std::shared_ptr<const kernels::RopeTable>>;
  // `cache` (optional) supplies RoPE tables from other buckets and receives the ones made.
  LowerContext(const Graph& graph, const WeightTable& weights, const Layout& layout, const RowCounts& bucket,
               const kernels::KernelTable& kernels, RopeTables* cache,
               kernels::Compute compute = kernels::Compute::kF32)
      : graph(graph), weights(weights), kernels(kernels), bucket(bucket), compute(compute), layout_(layout),
        cache_(cache) {}

  const Graph& graph;
  const WeightTable& weights;
  const kernels::KernelTable& kernels;
  const RowCounts bucket;
  const kernels::Compute compute;

  size_t at(ValueId v) const { return layout_.offsets[v.index]; }
  const Shape& shape(ValueId v) const { return graph.shape(v); }
  const WeightView& weight(WeightId id) const { return weights[id.index]; }
  kernels::MatrixRef matrix(WeightId id) const;
  // A bound vector (F32, graph/check.h), or null for an absent optional one.
  const float* vector(std::optional<WeightId> id) const;
  // A sequence is at most as long as the bucket's token count: RoPE tables and attention scratch
  // cover that.
  int64_t max_seq_len() const { return bucket.tokens; }
  // Asks for `floats` of scratch per thread; the bucket gets the most any step asks for.
  void need_scratch(size_t floats) { scratch_floats_ = std::max(scratch_floats_, floats); }
  size_t scratch_floats() const { return scratch_floats_; }
  // Asks for `floats` of scratch that every thread of a step reads (RunContext::shared): one
  // region, the most any step asks for.
  void need_shared(size_t floats) { shared_floats_ = std::max(shared_floats_, floats); }
  size_t shared_floats() const { return shared_floats_; }
  // The RoPE table of `theta` covering max_seq_len() positions: this bucket's, the cache's, or new.
  const kernels::RopeTable* rope_table(double theta);
  // The tables the bucket's steps point to; the Lowered holding them keeps them alive.
  RopeTables take_rope_tables() { return std::move(tables_); }

 private:
  const Layout& layout_;
  RopeTables* cache_;
  RopeTables tables_;
  size_t scratch_floats_ = 0;
  size_t shared_floats_ = 0;
};

// What running a step reads: the arena, one scratch region per part and one all parts share, the
// batch, the threads.
struct RunContext {
  float* arena;
  float* scratch;
  size_t scratch_floats;  // per part: part i uses [i · scratch_floats, (i + 1) · scratch_floats)
  float* shared;          // LowerContext::shared_floats() floats, written and read by one step
  const kernels::Packing& p;
  const RowCounts& rows;
  ThreadPool* pool;

  int threads() const { return pool == nullptr ? 1 : pool->size(); }
  float* scratch_of(int part) const { return scratch + static_cast<size_t>(part) * scratch_floats; }
  // Runs fn(begin, end, part) over [0, count) cut into parts of whole `grain`s, at least
  // `min_per_part` items each (waking workers costs more than a small step) and at most one per
  // thread. Every item is computed the same way whichever part it falls in, so outputs are
  // bit-identical for any thread count.
  template <typename Fn>
  void split(int64_t count, int64_t grain, int64_t min_per_part, const Fn& fn) const {
    const int64_t units = (count + grain - 1) / grain;
    const int64_t min_units = std::max<int64_t>(1, (min_per_part + grain - 1) / grain);
    const int parts = static_cast<int>(std::clamp<int64_t>(units / min_units, 1, threads()));
    auto part = [&](int i) {
      const int64_t begin = std::min(count, units * i / parts * grain);
      const int64_t end = std::min(count, units * (i + 1) / parts * grain);
      fn(begin, end, i);
    };
    if (parts == 1) {
      part(0);
    } else {
      pool->run(parts, part);
    }
  }
};

// The members every step declares: the op it lowers, its kind's name in profiles, its lowering
// from that op and its run (bodies in steps.cc).
#define LAYA_CPU_STEP(name, kind)                          \
  using Op = ops::name;                                   \
  static constexpr const char* kKind = kind;              \
  static name lower(const Op& op, LowerContext& context); \
  void run(const RunContext& run) const;

namespace steps {

struct Embed {
  LAYA_CPU_STEP(Embed, "embed")
  kernels::Kernel<kernels::EmbedFn> kernel;
  kernels::MatrixRef table;
  size_t out = 0;
};
struct LayerNorm {
  LAYA_CPU_STEP(LayerNorm, "layer_norm")
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
  LAYA_CPU_STEP(Gemm, "gemm")
  kernels::Kernel<kernels::GemmFn> kernel;  // f32 compute (null under integer compute)
  size_t a = 0;
  size_t out = 0;
  Rows rows = Rows::kTokens;
  kernels::MatrixRef w;
  const float* bias = nullptr;
  Epilogue epilogue = Epilogue::kNone;
  // Integer compute (Compute::kInt8 on q8 weights): a quantized into the shared scratch, then the
  // integer kernel.
  kernels::Kernel<kernels::QuantizeActivationsFn> quantize;
  kernels::Kernel<kernels::Int8GemmFn> int8;

  const char* kernel_name() const { return int8.fn != nullptr ? int8.name : kernel.name; }

 private:
  void run_int8(const RunContext& run) const;
};
struct Rope {
  LAYA_CPU_STEP(Rope, "rope")
  kernels::Kernel<kernels::RopeFn> kernel;
  size_t qkv = 0;
  int64_t heads = 0;
  const kernels::RopeTable* table = nullptr;  // kept alive by the Lowered holding the step
};
struct Attention {
  LAYA_CPU_STEP(Attention, "attention")
  kernels::Kernel<kernels::AttentionFn> kernel;
  size_t qkv = 0;
  size_t out = 0;
  int64_t heads = 0;
  int64_t window = -1;  // < 0: every key of the sequence
};
struct GeGlu {
  LAYA_CPU_STEP(GeGlu, "geglu")
  kernels::Kernel<kernels::GeGluFn> kernel;
  size_t x = 0;
  size_t out = 0;
  Rows rows = Rows::kTokens;
  int64_t n = 0;  // out's width
};
struct AddType {
  LAYA_CPU_STEP(AddType, "add_type")
  kernels::Kernel<kernels::AddTypeFn> kernel;
  kernels::MatrixRef table;
  size_t h = 0;
};
struct GatherMarkers {
  LAYA_CPU_STEP(GatherMarkers, "gather_markers")
  kernels::Kernel<kernels::GatherMarkersFn> kernel;
  size_t h = 0;
  size_t out = 0;
  int64_t width = 0;
};
struct ActFeatures {
  LAYA_CPU_STEP(ActFeatures, "act_features")
  kernels::Kernel<kernels::ActFeaturesFn> kernel;
  size_t h = 0;
  size_t logits = 0;
  size_t out = 0;
  int64_t width = 0;  // h's width; out is 4 wider
};
struct MeanPool {
  LAYA_CPU_STEP(MeanPool, "mean_pool")
  kernels::Kernel<kernels::MeanPoolFn> kernel;
  size_t h = 0;
  size_t out = 0;
  int64_t width = 0;
};

}  // namespace steps

#undef LAYA_CPU_STEP

// In the Op variant's order, one step per op (checked below).
using Step = std::variant<steps::Embed, steps::LayerNorm, steps::Gemm, steps::Rope, steps::Attention,
                          steps::GeGlu, steps::AddType, steps::GatherMarkers, steps::ActFeatures,
                          steps::MeanPool>;

namespace detail {
template <size_t... kIndex>
constexpr bool steps_follow_ops(std::index_sequence<kIndex...>) {
  return (std::is_same_v<typename std::variant_alternative_t<kIndex, Step>::Op, std::variant_alternative_t<kIndex, Op>> && ...);
}
}  // namespace detail
static_assert(std::variant_size_v<Step> == std::variant_size_v<Op> &&
                  detail::steps_follow_ops(std::make_index_sequence<std::variant_size_v<Op>>()),
              "every op needs its CPU step, at the same place in Step as the op has in Op");

namespace detail {
// The place of T among a variant's alternatives (their count when absent).
template <class T, class... A>
constexpr size_t index_in(const std::variant<A...>*) {
  size_t i = 0;
  ((std::is_same_v<T, A> ? false : (++i, true)) && ...);
  return i;
}
}  // namespace detail

// The step of op type O: the alternative of Step at O's place in Op.
template <class O>
using StepFor = std::variant_alternative_t<detail::index_in<O>(static_cast<const Op*>(nullptr)), Step>;

const char* kernel_name(const Step& step);

}  // namespace laya
