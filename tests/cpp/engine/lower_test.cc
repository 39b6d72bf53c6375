// Lowering a checked graph for a bucket: offsets, kernels, scratch and RoPE tables (the checks
// themselves: graph/check_test.cc).
#include "engine/lower.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "graph/tiny_graph.h"

namespace laya {

TEST_CASE("lowering plans the bucket, resolves offsets and picks each kernel once") {
  testing::TinyGraph f;
  const RowCounts bucket{32, 2, 1};
  auto lowered = lower(f.g, f.w, bucket, kernels::Isa::kScalar);
  REQUIRE(lowered.ok());
  const Lowered& l = *lowered.value();
  CHECK(l.bucket == bucket);
  REQUIRE(l.steps.size() == f.g.ops.size());
  std::vector<std::string> names;
  for (const Step& s : l.steps) names.emplace_back(kernel_name(s));
  CHECK(names == std::vector<std::string>{"embed_scalar", "layer_norm_f32_scalar", "gemm_scalar", "rope_f32_scalar",
                                          "attention_f32_scalar", "gemm_scalar", "mean_pool_f32_scalar"});

  // The arena worked out by hand for 32 tokens and 2 sequences (plan/layout.h: largest value first,
  // at the lowest offset free over its live range; sizes in floats, rounded up to 16):
  //   qkv     32 · 192 = 6144, ops 2-4: at 0
  //   o       32 · 64 = 2048, ops 4-5, meets qkv at op 4: at 6144
  //   h       32 · 8 = 256, ops 0-6, meets both: at 8192
  //   n       32 · 8 = 256, ops 1-2, meets qkv and h but not o: shares o's space, 6144
  //   pooled  2 · 8 = 16, op 6 to the end, meets h alone: at 0, over qkv's old space
  // 8448 floats in all. Each step must read and write exactly there.
  constexpr size_t kQkv = 0, kO = 6144, kH = 8192, kN = 6144, kPooled = 0;
  CHECK(l.layout.len == 8448);
  CHECK(l.layout.offsets == std::vector<size_t>{kH, kN, kQkv, kO, kPooled});
  const auto& embed = std::get<steps::Embed>(l.steps[0]);
  CHECK(embed.out == kH);
  CHECK(embed.table.data == f.table.data());
  const auto& norm = std::get<steps::LayerNorm>(l.steps[1]);
  CHECK(norm.x == kH);
  CHECK(norm.out == kN);
  CHECK(norm.width == 8);
  CHECK(norm.w == f.norm.data());
  const auto& gemm = std::get<steps::Gemm>(l.steps[2]);
  CHECK(gemm.a == kN);
  CHECK(gemm.out == kQkv);
  CHECK(gemm.w.data == f.wqkv.data());
  CHECK(gemm.epilogue == Epilogue::kNone);
  const auto& rope = std::get<steps::Rope>(l.steps[3]);
  CHECK(rope.qkv == kQkv);
  CHECK(rope.heads == 1);
  CHECK(rope.table->positions == bucket.tokens);
  const auto& attention = std::get<steps::Attention>(l.steps[4]);
  CHECK(attention.qkv == kQkv);
  CHECK(attention.out == kO);
  CHECK(attention.heads == 1);
  CHECK(attention.window == 2);
  const auto& out_proj = std::get<steps::Gemm>(l.steps[5]);
  CHECK(out_proj.a == kO);
  CHECK(out_proj.out == kH);
  CHECK(out_proj.w.data == f.wo.data());
  CHECK(out_proj.epilogue == Epilogue::kAccumulate);
  const auto& pool = std::get<steps::MeanPool>(l.steps[6]);
  CHECK(pool.h == kH);
  CHECK(pool.out == kPooled);
  CHECK(pool.width == 8);
  // Scratch is the largest need of any step: the scalar GEMM converts one weight row (k = 8, then
  // k = 64), scalar attention holds one query's scores (32 keys).
  CHECK(l.scratch_floats == 64);
}


TEST_CASE("buckets share a RoPE table of their theta when it covers their positions") {
  testing::TinyGraph f;
  RopeTableCache cache;
  auto big = lower(f.g, f.w, RowCounts{64, 1, 1}, kernels::Isa::kScalar, &cache);
  auto small = lower(f.g, f.w, RowCounts{16, 1, 1}, kernels::Isa::kScalar, &cache);
  REQUIRE(big.ok());
  REQUIRE(small.ok());
  REQUIRE(cache.size() == 1);
  CHECK(std::get<steps::Rope>(small.value()->steps[3]).table == cache[0].get());
  CHECK(cache[0]->positions == 64);
  auto bigger = lower(f.g, f.w, RowCounts{128, 1, 1}, kernels::Isa::kScalar, &cache);
  REQUIRE(bigger.ok());
  CHECK(cache.size() == 2);
  CHECK(std::get<steps::Rope>(bigger.value()->steps[3]).table->positions == 128);
  // The 64-row bucket keeps its table alive, whatever the cache does.
  cache.clear();
  CHECK(std::get<steps::Rope>(big.value()->steps[3]).table->positions == 64);
}

TEST_CASE("a bucket whose activations cannot be addressed is an out-of-memory error, not a wrap") {
  testing::TinyGraph f;
  CHECK(check_bucket(f.g, RowCounts{2048, 64, 64}).ok());
  // Sizes past 64 bits once multiplied out: a wrap would plan a tiny arena.
  f.g.values[f.h.index].width = int64_t{1} << 60;
  const Status s = check_bucket(f.g, RowCounts{1024, 1, 1});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == ErrorCode::kOutOfMemory);
  CHECK(s.error().message.find("lowering for 1024 tokens, 1 sequences and 1 markers: the activations need more than") == 0);
  auto l = lower(f.g, f.w, RowCounts{1024, 1, 1}, kernels::Isa::kScalar);
  REQUIRE_FALSE(l.ok());
}

}  // namespace laya
