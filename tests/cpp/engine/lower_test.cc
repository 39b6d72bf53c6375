#include "engine/lower.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_test_util.h"

namespace laya {
namespace {

// A tiny graph: embed, norm, a GEMM, attention over one head, and an output.
struct Fixture {
  std::mt19937 rng{1};
  testing::RandomMatrix table = testing::random_matrix(rng, DType::kF16, 10, 8);
  std::vector<float> norm = testing::random_floats(rng, 8);
  testing::RandomMatrix wqkv = testing::random_matrix(rng, DType::kBF16, 192, 8);
  testing::RandomMatrix wo = testing::random_matrix(rng, DType::kF32, 8, 64);
  Graph g;
  WeightTable w;
  ValueId h, n, qkv, o;

  Fixture() {
    w.push_back({"table", DType::kF16, {10, 8}, table.data()});
    w.push_back({"norm", DType::kF32, {8}, reinterpret_cast<const std::byte*>(norm.data())});
    w.push_back({"wqkv", DType::kBF16, {192, 8}, wqkv.data()});
    w.push_back({"wo", DType::kF32, {8, 64}, wo.data()});
    h = g.value(Rows::kTokens, 8);
    n = g.value(Rows::kTokens, 8);
    qkv = g.value(Rows::kTokens, 192);
    o = g.value(Rows::kTokens, 64);
    ValueId pooled = g.value(Rows::kSeqs, 8);
    g.push(ops::Embed{WeightId{0}, h});
    g.push(ops::LayerNorm{h, WeightId{1}, std::nullopt, 1e-5, n});
    g.push(ops::Gemm{n, WeightId{2}, std::nullopt, Epilogue::kNone, qkv});
    g.push(ops::Rope{qkv, 10000.0});
    g.push(ops::Attention{qkv, 2, o});
    g.push(ops::Gemm{o, WeightId{3}, std::nullopt, Epilogue::kAccumulate, h});
    g.push(ops::MeanPool{h, pooled});
    g.pooled = pooled;
  }
};

std::string message_of(const Status& s) { return s.ok() ? "" : s.error().message; }

}  // namespace

TEST_CASE("lowering plans the bucket, resolves offsets and picks each kernel once") {
  Fixture f;
  const RowCounts bucket{32, 2, 1};
  auto lowered = lower(f.g, f.w, bucket, kernels::Isa::kScalar);
  REQUIRE(lowered.ok());
  const Lowered& l = *lowered.value();
  CHECK(l.bucket == bucket);
  REQUIRE(l.steps.size() == f.g.ops.size());
  std::vector<std::string> names;
  for (const Step& s : l.steps) names.emplace_back(kernel_name(s));
  CHECK(names == std::vector<std::string>{"embed_f16_scalar", "layer_norm_f32_scalar", "gemm_bf16_scalar",
                                          "rope_f32_scalar", "attention_f32_scalar", "gemm_f32_scalar",
                                          "mean_pool_f32_scalar"});

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

TEST_CASE("shape errors name the op, the tensor and the numbers") {
  SUBCASE("a GEMM weight whose k is not a's width") {
    Fixture f;
    f.w[3].shape = {8, 63};
    const Status s = check_graph(f.g, f.w);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::kInvalidCheckpoint);
    CHECK(message_of(s) == "op 5 (Gemm): w 'wo' has shape [8, 63], expected [8, 64]");
  }
  SUBCASE("a norm weight of the wrong size") {
    Fixture f;
    f.w[1].shape = {9};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 1 (LayerNorm): w 'norm' has shape [9], expected [8]");
  }
  SUBCASE("a norm weight not bound as F32") {
    Fixture f;
    f.w[1].dtype = DType::kBF16;
    const Status s = check_graph(f.g, f.w);
    CHECK(s.error().code == ErrorCode::kInternal);
    CHECK(message_of(s) == "op 1 (LayerNorm): w 'norm' is BF16; vectors must be bound as F32");
  }
  SUBCASE("an embedding table narrower than its output") {
    Fixture f;
    f.w[0].shape = {10, 7};
    CHECK(message_of(check_graph(f.g, f.w)) ==
          "op 0 (Embed): table 'table' has shape [10, 7], expected [rows >= 1, 8]");
  }
  SUBCASE("a qkv that is not 3 · heads · 64 wide") {
    Fixture f;
    f.g.values[f.qkv.index].width = 190;
    f.w[2].shape = {190, 8};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 3 (Rope): qkv (value 2) is 190 wide, not 3 · heads · 64");
  }
  SUBCASE("an attention output of the wrong width") {
    Fixture f;
    f.g.values[f.o.index].width = 128;
    f.w[3].shape = {8, 128};
    CHECK(message_of(check_graph(f.g, f.w)) ==
          "op 4 (Attention): out (value 3) is 128 wide, expected 64 (heads · 64 for a qkv of 192)");
  }
  SUBCASE("a GeGlu input that is not twice as wide") {
    Graph g;
    WeightTable w;
    std::mt19937 rng(2);
    auto t = testing::random_matrix(rng, DType::kF32, 4, 10);
    w.push_back({"t", DType::kF32, {4, 10}, t.data()});
    ValueId x = g.value(Rows::kTokens, 10);
    ValueId y = g.value(Rows::kTokens, 6);
    g.push(ops::Embed{WeightId{0}, x});
    g.push(ops::GeGlu{x, y});
    CHECK(message_of(check_graph(g, w)) == "op 1 (GeGlu): x (value 0) is 10 wide, expected 12 (twice out's width)");
  }
  SUBCASE("act features whose output is not h + 4 wide") {
    Fixture f;
    ValueId logits = f.g.value(Rows::kMarkers, 1);
    ValueId x = f.g.value(Rows::kSeqs, 8);
    ValueId z = f.g.value(Rows::kMarkers, 8);
    f.g.push(ops::GatherMarkers{f.h, z});
    f.g.push(ops::Gemm{z, WeightId{1}, std::nullopt, Epilogue::kNone, logits});
    f.g.push(ops::ActFeatures{f.h, logits, x});
    f.w[1].shape = {1, 8};  // reused as the [1, 8] scorer: then the norm op complains first
    CHECK(message_of(check_graph(f.g, f.w)) == "op 1 (LayerNorm): w 'norm' has shape [1, 8], expected [8]");
    f.w.push_back({"scorer", DType::kF32, {1, 8}, f.w[1].data});
    f.w[1].shape = {8};
    std::get<ops::Gemm>(f.g.ops[8]).w = WeightId{4};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 9 (ActFeatures): out (value 6) is 8 wide, expected 12 (h's width + 4 features)");
  }
  SUBCASE("a weight id past the table") {
    Fixture f;
    std::get<ops::Gemm>(f.g.ops[2]).w = WeightId{9};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 2 (Gemm): w is weight 9 but the table has 4 weights");
  }
}

TEST_CASE("a value read before any op writes it is a graph error") {
  Fixture f;
  ValueId ghost = f.g.value(Rows::kTokens, 8);
  f.g.ops.insert(f.g.ops.begin() + 1, ops::LayerNorm{ghost, WeightId{1}, std::nullopt, 1e-5, f.n});
  const Status s = check_graph(f.g, f.w);
  CHECK(s.error().code == ErrorCode::kInternal);
  CHECK(message_of(s) == "op 1 (LayerNorm) reads value 5 before any op writes it");
}

TEST_CASE("outputs must be written and have the right rows") {
  Fixture f;
  f.g.logits = f.h;  // token rows, not marker rows
  CHECK(message_of(check_graph(f.g, f.w)) == "output logits has token rows, expected marker rows");
  f.g.logits = f.g.value(Rows::kMarkers, 1);
  CHECK(message_of(check_graph(f.g, f.w)) == "output logits (value 5) is not written by any op");
}

TEST_CASE("buckets share a RoPE table of their theta when it covers their positions") {
  Fixture f;
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
  Fixture f;
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
