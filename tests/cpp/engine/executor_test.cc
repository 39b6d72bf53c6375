// The engine end to end on a small random model of every op kind (a Laya-shaped graph: embeddings,
// two encoder layers, one windowed, a decision head layer, scorer, act head, pooling) with F16, BF16
// and F32 weights.
#include "engine/executor.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_test_util.h"
#include "plan/bucket.h"

// Every allocation in this test executable is counted, so a test can show that a run allocates
// nothing. (GCC's -Wmismatched-new-delete cannot see that these replacements pair malloc with free.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Every form the library may call is replaced, so that what one allocates the matching one frees
// (sanitizers check that pairing).
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept { return operator new(n, tag); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace laya {
namespace {

constexpr int64_t kVocab = 61;
constexpr int64_t kD = 128;  // two heads of 64
constexpr int64_t kInter = 96;
constexpr int64_t kTypes = 3;
constexpr int64_t kWindow = 3;

// Owns the weights' storage and builds the graph over them.
struct Model {
  std::mt19937 rng{2024};
  std::vector<std::unique_ptr<testing::RandomMatrix>> matrices;
  std::vector<std::unique_ptr<std::vector<float>>> vectors;
  WeightTable weights;
  Graph g;

  WeightId matrix(const std::string& name, DType dtype, int64_t n, int64_t k) {
    matrices.push_back(std::make_unique<testing::RandomMatrix>(
        testing::random_matrix(rng, dtype, n, k, 1.0f / std::sqrt(static_cast<float>(k)))));
    weights.push_back({name, dtype, {n, k}, matrices.back()->data()});
    return WeightId{static_cast<uint32_t>(weights.size() - 1)};
  }
  WeightId vector(const std::string& name, int64_t n, float mean, float scale) {
    auto v = std::make_unique<std::vector<float>>(testing::random_floats(rng, n, scale));
    for (float& x : *v) x += mean;
    vectors.push_back(std::move(v));
    weights.push_back({name, DType::kF32, {n}, reinterpret_cast<const std::byte*>(vectors.back()->data())});
    return WeightId{static_cast<uint32_t>(weights.size() - 1)};
  }
  ValueId norm(ValueId x, const std::string& name, bool bias) {
    ValueId out = g.value(g.shape(x).rows, g.shape(x).width);
    std::optional<WeightId> b;
    if (bias) b = vector(name + ".bias", g.shape(x).width, 0.0f, 0.1f);
    g.push(ops::LayerNorm{x, vector(name + ".weight", g.shape(x).width, 1.0f, 0.1f), b, 1e-5, out});
    return out;
  }
  ValueId linear(ValueId a, const std::string& name, DType dtype, int64_t n, bool bias, Epilogue e,
                 std::optional<ValueId> into = std::nullopt) {
    ValueId out = into ? *into : g.value(g.shape(a).rows, n);
    std::optional<WeightId> b;
    if (bias) b = vector(name + ".bias", n, 0.0f, 0.1f);
    g.push(ops::Gemm{a, matrix(name + ".weight", dtype, n, g.shape(a).width), b, e, out});
    return out;
  }

  Model() {
    ValueId x = g.value(Rows::kTokens, kD);
    g.push(ops::Embed{matrix("embed", DType::kF16, kVocab, kD), x});
    ValueId h = norm(x, "embed.norm", false);
    for (int layer = 0; layer < 2; ++layer) {
      const std::string p = "layer" + std::to_string(layer);
      const DType dt = layer == 0 ? DType::kF16 : DType::kBF16;
      ValueId a = layer == 0 ? h : norm(h, p + ".attn_norm", false);
      ValueId qkv = linear(a, p + ".wqkv", dt, 3 * kD, false, Epilogue::kNone);
      g.push(ops::Rope{qkv, layer == 0 ? 160000.0 : 10000.0});
      ValueId o = g.value(Rows::kTokens, kD);
      g.push(ops::Attention{qkv, layer == 0 ? std::nullopt : std::optional<int64_t>(kWindow), o});
      linear(o, p + ".wo", dt, kD, false, Epilogue::kAccumulate, h);
      ValueId m = norm(h, p + ".mlp_norm", false);
      ValueId u = linear(m, p + ".wi", DType::kF32, 2 * kInter, false, Epilogue::kNone);
      ValueId gg = g.value(Rows::kTokens, kInter);
      g.push(ops::GeGlu{u, gg});
      linear(gg, p + ".mlp_wo", dt, kD, false, Epilogue::kAccumulate, h);
    }
    ValueId f = norm(h, "final_norm", false);
    ValueId pooled = g.value(Rows::kSeqs, kD);
    g.push(ops::MeanPool{f, pooled});
    g.push(ops::AddType{f, matrix("type_emb", DType::kF32, kTypes, kD)});
    // One decision head layer: biases everywhere, full attention without RoPE, a ReLU FFN.
    ValueId a = norm(f, "head.norm1", true);
    ValueId qkv = linear(a, "head.in_proj", DType::kF16, 3 * kD, true, Epilogue::kNone);
    ValueId o = g.value(Rows::kTokens, kD);
    g.push(ops::Attention{qkv, std::nullopt, o});
    linear(o, "head.out_proj", DType::kF16, kD, true, Epilogue::kAccumulate, f);
    ValueId n2 = norm(f, "head.norm2", true);
    ValueId r = linear(n2, "head.linear1", DType::kF16, 4 * kD, true, Epilogue::kRelu);
    linear(r, "head.linear2", DType::kF16, kD, true, Epilogue::kAccumulate, f);
    // Scorer at the markers, then the act head.
    ValueId z = g.value(Rows::kMarkers, kD);
    g.push(ops::GatherMarkers{f, z});
    ValueId s = norm(z, "scorer.0", true);
    ValueId u = linear(s, "scorer.1", DType::kF16, kD, true, Epilogue::kGelu);
    ValueId logits = linear(u, "scorer.3", DType::kF16, 1, true, Epilogue::kNone);
    ValueId feats = g.value(Rows::kSeqs, kD + 4);
    g.push(ops::ActFeatures{f, logits, feats});
    ValueId act_hidden = linear(feats, "act_head.0", DType::kF16, 256, true, Epilogue::kGelu);
    ValueId act = linear(act_hidden, "act_head.2", DType::kF16, 2, true, Epilogue::kNone);
    g.logits = logits;
    g.act = act;
    g.pooled = pooled;
  }

  Executor executor(kernels::Isa isa) {
    auto e = Executor::create(g, weights, isa);
    REQUIRE_MESSAGE(e.ok(), (e.ok() ? "" : e.error().message));
    return std::move(e).value();
  }
};

struct Sequence {
  std::vector<int32_t> ids;
  std::vector<int32_t> markers;
  int32_t qtype = 0;
};

std::vector<Sequence> random_sequences(std::mt19937& rng, const std::vector<int>& lengths) {
  std::vector<Sequence> out;
  for (int len : lengths) {
    Sequence s;
    for (int i = 0; i < len; ++i) s.ids.push_back(static_cast<int32_t>(rng() % kVocab));
    const int k = 1 + static_cast<int>(rng() % std::min(len, 5));
    for (int i = 0; i < k; ++i) s.markers.push_back(static_cast<int32_t>((i * 7 + 1) % len));
    s.qtype = static_cast<int32_t>(rng() % kTypes);
    out.push_back(std::move(s));
  }
  return out;
}

Batch batch_of(const std::vector<Sequence>& seqs) {
  Batch b;
  for (const auto& s : seqs) b.add(s.ids, s.markers, s.qtype);
  return b;
}

struct Outputs {
  std::vector<float> logits, act, pooled;
};

// Checks the batch against the executor's limits (as the session does, once), then runs it.
Status checked_run(Executor& e, const Batch& b) {
  Result<CheckedBatch> checked = check_batch(b, e.limits());
  if (!checked.ok()) return checked.error();
  return e.run(checked.value());
}

Outputs run(Executor& e, const Batch& b) {
  const Status s = checked_run(e, b);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  auto copy = [&](std::optional<ValueId> v) {
    auto span = e.output(*v);
    return std::vector<float>(span.begin(), span.end());
  };
  return {copy(e.graph().logits), copy(e.graph().act), copy(e.graph().pooled)};
}

bool all_finite(const std::vector<float>& v) {
  for (float x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

void require_same_bits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(what << " element " << i << ": " << a[i] << " vs " << b[i]);
    REQUIRE(testing::same_bits(a[i], b[i]));
  }
}

const std::vector<kernels::Isa> kIsas = {kernels::Isa::kScalar, kernels::Isa::kSimd128};

}  // namespace

TEST_CASE("a packed batch gives the same bits as each sequence run alone") {
  Model model;
  std::mt19937 rng(5);
  // Lengths around the window and the SIMD tiles, and one sequence of a single token.
  const auto seqs = random_sequences(rng, {1, 5, 17, 40, 9, 3});
  for (kernels::Isa isa : kIsas) {
    Executor e = model.executor(isa);
    const Outputs packed = run(e, batch_of(seqs));
    REQUIRE(packed.logits.size() == batch_of(seqs).markers.size());
    REQUIRE(packed.act.size() == 2 * seqs.size());
    REQUIRE(packed.pooled.size() == kD * seqs.size());
    CHECK(all_finite(packed.logits));
    CHECK(all_finite(packed.act));
    CHECK(all_finite(packed.pooled));
    size_t marker = 0;
    for (size_t s = 0; s < seqs.size(); ++s) {
      INFO(kernels::isa_name(isa) << " sequence " << s);
      const Outputs alone = run(e, batch_of({seqs[s]}));
      const size_t k = seqs[s].markers.size();
      require_same_bits(alone.logits, {packed.logits.begin() + marker, packed.logits.begin() + marker + k}, "logits");
      require_same_bits(alone.act, {packed.act.begin() + 2 * s, packed.act.begin() + 2 * s + 2}, "act");
      require_same_bits(alone.pooled, {packed.pooled.begin() + kD * s, packed.pooled.begin() + kD * (s + 1)},
                        "pooled");
      marker += k;
    }
  }
}

TEST_CASE("running again, in another bucket and back, gives identical bits") {
  Model model;
  std::mt19937 rng(6);
  const auto small = random_sequences(rng, {4, 7});
  const auto large = random_sequences(rng, {30, 80, 12});
  for (kernels::Isa isa : kIsas) {
    Executor e = model.executor(isa);
    const Outputs first = run(e, batch_of(small));
    const size_t arena_small = e.arena_bytes();
    run(e, batch_of(large));
    CHECK(e.buckets_lowered() == 2);
    CHECK(e.arena_bytes() > arena_small);
    const Outputs again = run(e, batch_of(small));
    CHECK(e.buckets_lowered() == 2);
    require_same_bits(first.logits, again.logits, "logits");
    require_same_bits(first.act, again.act, "act");
    require_same_bits(first.pooled, again.pooled, "pooled");
  }
}

TEST_CASE("a run in a bucket already lowered allocates nothing") {
  Model model;
  std::mt19937 rng(7);
  const Batch batch = batch_of(random_sequences(rng, {10, 3, 25}));
  const Batch other = batch_of(random_sequences(rng, {11, 2, 24}));  // same bucket
  for (kernels::Isa isa : kIsas) {
    Executor e = model.executor(isa);
    long before = g_allocations.load();
    Status s = checked_run(e, batch);  // lowers the bucket: allocates
    REQUIRE(s.ok());
    CHECK(g_allocations.load() > before);
    const Result<CheckedBatch> checked = check_batch(other, e.limits());
    REQUIRE(checked.ok());
    before = g_allocations.load();
    s = e.run(checked.value());
    const long during = g_allocations.load() - before;
    REQUIRE(s.ok());
    CHECK(during == 0);
    CHECK(e.buckets_lowered() == 1);
  }
}

TEST_CASE("scalar and SIMD executors agree within 1e-5 relative") {
  // Natively both executors run the scalar kernels (SIMD128 is compiled only for wasm), so this
  // compares them only in the Emscripten build; there GEMMs agree bit for bit and GELU, attention's
  // softmax and LayerNorm's sums round differently.
  Model model;
  std::mt19937 rng(8);
  const Batch batch = batch_of(random_sequences(rng, {1, 6, 33, 70, 8}));
  Executor scalar = model.executor(kernels::Isa::kScalar);
  Executor simd = model.executor(kernels::Isa::kSimd128);
  const Outputs a = run(scalar, batch);
  const Outputs b = run(simd, batch);
  auto agree = [](const std::vector<float>& x, const std::vector<float>& y, const char* what) {
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      INFO(what << " element " << i << ": " << x[i] << " vs " << y[i]);
      REQUIRE(testing::close(y[i], x[i], 1e-5));
    }
  };
  agree(a.logits, b.logits, "logits");
  agree(a.act, b.act, "act");
  agree(a.pooled, b.pooled, "pooled");
  if (kernels::simd128_compiled()) CHECK(simd.kernel_names()[2] == "gemm_f16_4x8_simd128");
}

TEST_CASE("an executor's limits come from its graph, and bad batches fail the check naming the sequence") {
  Model model;
  Executor e = model.executor(kernels::Isa::kScalar);
  CHECK(e.limits().vocab_size == kVocab);
  CHECK(e.limits().type_count == kTypes);
  CHECK(e.limits().needs_markers);
  Batch b;
  b.add(std::vector<int32_t>{1, 2, 3}, std::vector<int32_t>{0}, 1);
  b.add(std::vector<int32_t>{4, 5}, std::vector<int32_t>{}, 0);
  Status s = checked_run(e, b);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "invalid batch: sequence 1 has no markers; a decision needs at least one option");
  CHECK(e.output(*e.graph().logits).empty());
  Batch c;
  c.add(std::vector<int32_t>{1, static_cast<int32_t>(kVocab)}, std::vector<int32_t>{0}, 3);
  s = checked_run(e, c);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "invalid batch: sequence 0 token 1 has id 61, outside the vocabulary [0, 61)");
}

TEST_CASE("an executor's one arena is the planned values, then the kernels' scratch, and nothing else") {
  Model model;
  Executor e = model.executor(kernels::best_isa());
  CHECK(e.arena_bytes() == 0);
  std::mt19937 rng(9);
  const Batch b = batch_of(random_sequences(rng, {20, 20}));
  REQUIRE(checked_run(e, b).ok());
  auto lowered = lower(model.g, model.weights, bucket_for(b.rows()), e.isa());
  REQUIRE(lowered.ok());
  const Lowered& l = *lowered.value();
  CHECK(l.scratch_floats > 0);
  CHECK(l.scratch_at() >= l.layout.len);
  CHECK(l.scratch_at() < l.layout.len + 16);
  CHECK(l.scratch_at() % 16 == 0);  // the scratch starts on a 64-byte boundary
  // Rounded up to whole 64-byte lines, as the arena allocates.
  CHECK(e.arena_bytes() == (l.arena_floats(1) * sizeof(float) + 63) / 64 * 64);
}

TEST_CASE("executors sharing a workspace answer as they do alone, in one arena as big as the larger need") {
  Model model;
  std::mt19937 rng(10);
  const Batch small = batch_of(random_sequences(rng, {6, 9}));
  const Batch large = batch_of(random_sequences(rng, {40, 70, 15}));
  Executor alone_small = model.executor(kernels::best_isa());
  Executor alone_large = model.executor(kernels::best_isa());
  const Outputs want_small = run(alone_small, small);
  const Outputs want_large = run(alone_large, large);

  auto workspace = std::make_shared<Workspace>();
  auto a = Executor::create(model.g, model.weights, kernels::best_isa(), workspace);
  auto b = Executor::create(model.g, model.weights, kernels::best_isa(), workspace);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  // Interleaved, each in its own bucket: every run rewrites the shared arena.
  for (int round = 0; round < 2; ++round) {
    const Outputs got_large = run(b.value(), large);
    const Outputs got_small = run(a.value(), small);
    require_same_bits(got_small.logits, want_small.logits, "small logits");
    require_same_bits(got_small.pooled, want_small.pooled, "small pooled");
    require_same_bits(got_large.logits, want_large.logits, "large logits");
    require_same_bits(got_large.act, want_large.act, "large act");
  }
  CHECK(a.value().arena_bytes() == alone_large.arena_bytes());
  CHECK(b.value().arena_bytes() == a.value().arena_bytes());
  CHECK(a.value().arena_bytes() > alone_small.arena_bytes());
}

TEST_CASE("a stop check ends a run between steps with an aborted error, and the next run is unchanged") {
  Model model;
  std::mt19937 rng(13);
  const Batch batch = batch_of(random_sequences(rng, {9, 21}));
  for (bool profiling : {false, true}) {
    INFO("profiling " << profiling);
    Executor e = model.executor(kernels::Isa::kSimd128);
    e.set_profiling(profiling);
    const Outputs clean = run(e, batch);
    // Says stop on its fourth question: three steps run, the fourth never starts.
    int asked = 0;
    e.set_stop_check([&asked] { return ++asked == 4; });
    const Status stopped = checked_run(e, batch);
    REQUIRE_FALSE(stopped.ok());
    CHECK(stopped.error().code == ErrorCode::kAborted);
    CHECK(std::string(error_code_name(stopped.error().code)) == "aborted");
    CHECK(stopped.error().message.find("before step 4 of ") != std::string::npos);
    CHECK(asked == 4);
    CHECK(e.output(*e.graph().logits).empty());  // a stopped run leaves no output to read
    // A check that keeps saying go is asked once per step and changes nothing.
    asked = 0;
    e.set_stop_check([&asked] { ++asked; return false; });
    const Outputs after = run(e, batch);
    CHECK(asked > 4);
    require_same_bits(clean.logits, after.logits, "logits");
    require_same_bits(clean.act, after.act, "act");
    require_same_bits(clean.pooled, after.pooled, "pooled");
  }
}

TEST_CASE("with profiling on, each run counts every op once by kind and the GEMMs' arithmetic") {
  Model model;
  std::mt19937 rng(11);
  const auto seqs = random_sequences(rng, {6, 13});
  const Batch batch = batch_of(seqs);
  const RowCounts rows = batch.rows();
  // What the graph says: ops per kind, and 2·rows·n·k summed over its GEMMs.
  std::map<std::string, int64_t> ops_by_kind;
  double gemm_flops = 0;
  for (const Op& op : model.g.ops) {
    // Lowering makes one step per op, and the Step variant lists its kinds in the Op variant's order.
    ops_by_kind[StepProfile::kind_name(op.index())] += 1;
    if (const auto* gemm = std::get_if<ops::Gemm>(&op)) {
      const WeightView& w = model.weights[gemm->w.index];
      gemm_flops += 2.0 * static_cast<double>(rows.of(model.g.shape(gemm->a).rows) * w.shape[0] * w.shape[1]);
    }
  }
  for (kernels::Isa isa : kIsas) {
    INFO(kernels::isa_name(isa));
    Executor e = model.executor(isa);
    const Outputs plain = run(e, batch);
    CHECK(e.profile().runs == 0);
    e.set_profiling(true);
    const Outputs timed = run(e, batch);
    run(e, batch);
    const StepProfile& p = e.profile();
    CHECK(p.runs == 2);
    std::map<std::string, int64_t> counted;
    for (size_t k = 0; k < StepProfile::kKinds; ++k) {
      if (p.calls[k] > 0) counted[StepProfile::kind_name(k)] = p.calls[k] / 2;
      CHECK(p.seconds[k] >= 0.0);
    }
    CHECK(counted == ops_by_kind);
    const size_t gemm = Step(steps::Gemm{}).index();
    CHECK(p.flops[gemm] == doctest::Approx(2 * gemm_flops).epsilon(1e-12));
    // The timer does not change what is computed.
    require_same_bits(plain.logits, timed.logits, "logits");
    require_same_bits(plain.pooled, timed.pooled, "pooled");
    e.set_profiling(false);
    run(e, batch);
    CHECK(e.profile().runs == 2);
  }
}

TEST_CASE("outputs are bit-identical with 1, 2, 3 or 4 threads, alone and packed" * doctest::skip(!kThreadsAvailable)) {
  Model model;
  std::mt19937 rng(12);
  // Long enough that GEMMs, norms and attention are split (at least 64 columns / 16 rows a part).
  const auto seqs = random_sequences(rng, {70, 5, 33, 1});
  for (kernels::Isa isa : kIsas) {
    Executor one = model.executor(isa);
    const Outputs want = run(one, batch_of(seqs));
    const Outputs want_alone = run(one, batch_of({seqs[0]}));
    for (int threads : {2, 3, 4}) {
      INFO(kernels::isa_name(isa) << " threads " << threads);
      ThreadPool pool(threads);
      Executor e = model.executor(isa);
      e.set_thread_pool(&pool);
      CHECK(e.threads() == threads);
      const Outputs got = run(e, batch_of(seqs));
      require_same_bits(got.logits, want.logits, "logits");
      require_same_bits(got.act, want.act, "act");
      require_same_bits(got.pooled, want.pooled, "pooled");
      const Outputs alone = run(e, batch_of({seqs[0]}));
      require_same_bits(alone.logits, want_alone.logits, "logits alone");
    }
  }
}

TEST_CASE("a threaded run in a bucket already lowered allocates nothing" * doctest::skip(!kThreadsAvailable)) {
  Model model;
  std::mt19937 rng(13);
  const Batch batch = batch_of(random_sequences(rng, {60, 20}));
  ThreadPool pool(3);
  Executor e = model.executor(kernels::best_isa());
  e.set_thread_pool(&pool);
  REQUIRE(checked_run(e, batch).ok());
  const Result<CheckedBatch> checked = check_batch(batch, e.limits());
  REQUIRE(checked.ok());
  const long before = g_allocations.load();
  const Status s = e.run(checked.value());
  const long during = g_allocations.load() - before;
  REQUIRE(s.ok());
  CHECK(during == 0);
}

}  // namespace laya
