// q8 weights end to end on the reference fixtures (docs/q8-format.md): a checkpoint quantized while
// it streams in (WeightsMode::kQ8, through the staging window in pieces of any size) and the same
// checkpoint converted to a q8 file first give the same bits, and both stay within the fidelity
// targets of the f32 reference, printed per fixture: largest probability difference (softmax of
// the decision logits of each sequence) <= 0.01, no argmax change (decision or act) where the
// reference's top two are at least 0.02 apart, embeddings' cosine similarity >= 0.999. The act
// logits' probability difference and the size are printed too; the size target (1.12 bytes per
// parameter) is held for the F16 fixture, the shape of real checkpoints: tiny-fanin is F32 with
// d = 64, so its F32 vectors, its header and the act head's ragged group (k = 68) weigh more.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "laya/q8_checkpoint.h"
#include "session/fixture_files.h"
#include "session/wire.h"
#include "util/json.h"

namespace laya {
namespace {

std::span<const std::byte> bytes_of(const std::string& s) { return {reinterpret_cast<const std::byte*>(s.data()), s.size()}; }

// The loader's staged path: the data section through the window, `chunk` bytes at a time.
void load_staged(Session& session, std::span<const std::byte> file, size_t chunk) {
  auto needed = session.header_bytes_needed(file.first(8), file.size());
  REQUIRE(needed.ok());
  auto plan = session.plan_weights(file.first(needed.value()), file.size(), WeightsMode::kQ8);
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  const WeightPlan& p = plan.value();
  REQUIRE(p.stage != nullptr);
  chunk = std::min(chunk, p.stage_bytes);
  for (size_t at = 0; at < p.data_length; at += chunk) {
    const size_t n = std::min<size_t>(chunk, p.data_length - at);
    std::memcpy(p.stage, file.data() + p.data_offset + at, n);
    Status s = session.weights_staged(n);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  }
  Status s = session.finish_weights();
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

// A file already in memory, loaded as stored.
void load_file(Session& session, std::span<const std::byte> file, WeightsMode mode = WeightsMode::kAsStored) {
  auto needed = session.header_bytes_needed(file.first(8), file.size());
  REQUIRE(needed.ok());
  auto plan = session.plan_weights(file.first(needed.value()), file.size(), mode);
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  CHECK(plan.value().stage == nullptr);  // a q8 file is kept as it is
  std::memcpy(plan.value().pointer, file.data() + plan.value().data_offset, plan.value().data_length);
  REQUIRE(session.weights_written(plan.value().data_length).ok());
  Status s = session.finish_weights();
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

uint64_t converted_data_length(const std::vector<std::byte>& file) {
  auto h = safetensors::parse_file_header(file);
  REQUIRE(h.ok());
  return h.value().data_length;
}

std::vector<double> softmax(const std::vector<double>& x) {
  const double m = *std::max_element(x.begin(), x.end());
  std::vector<double> p(x.size());
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += p[i] = std::exp(x[i] - m);
  for (double& v : p) v /= sum;
  return p;
}

std::vector<double> doubles(const json::Value& v) {
  std::vector<double> out;
  for (const json::Value& x : v.items()) out.push_back(static_cast<float>(x.as_double()));
  return out;
}

struct Fidelity {
  double max_prob_diff = 0;         // over decision logits
  double max_act_prob_diff = 0;     // over act logits
  int argmax_checked = 0, argmax_changed = 0;
  double min_cosine = 1;

  void compare(const std::vector<float>& got_f, const std::vector<double>& want, double& worst) {
    REQUIRE(got_f.size() == want.size());
    const std::vector<double> got(got_f.begin(), got_f.end());
    const auto pg = softmax(got), pw = softmax(want);
    for (size_t i = 0; i < pg.size(); ++i) worst = std::max(worst, std::fabs(pg[i] - pw[i]));
    if (pw.size() < 2) return;
    std::vector<double> sorted = pw;
    std::sort(sorted.rbegin(), sorted.rend());
    if (sorted[0] - sorted[1] < 0.02) return;
    ++argmax_checked;
    if (std::max_element(pg.begin(), pg.end()) - pg.begin() != std::max_element(pw.begin(), pw.end()) - pw.begin()) {
      ++argmax_changed;
    }
  }
};

void check_fixture(const char* name, bool size_target) {
  const std::string dir = testing::reference_dir(name);
  const std::string source = testing::read_file(dir + "/checkpoint/model.safetensors");
  auto converted = quantize_checkpoint_file(bytes_of(source));
  REQUIRE_MESSAGE(converted.ok(), (converted.ok() ? "" : converted.error().message));
  const std::vector<std::byte>& q8_file = converted.value();

  auto fixture = json::parse(testing::read_file(dir + "/fixture.json"), "fixture.json");
  REQUIRE(fixture.ok());
  auto batches = wire::forward_inputs(json::Value::object({{"inputs", *fixture.value().find("inputs")}}));
  REQUIRE(batches.ok());
  const Batch& batch = batches.value().decisions;
  Batch embed_batch;
  for (const json::Value& item : fixture.value().find("embed_inputs")->items()) {
    std::vector<int32_t> ids;
    for (const json::Value& id : item.find("ids")->items()) ids.push_back(static_cast<int32_t>(*id.as_int64()));
    embed_batch.add(ids);
  }

  // Four loads: streamed through the window in its own size and in odd small pieces, the converted
  // file as stored, and the converted file with the q8 option (kept as it is).
  std::vector<std::vector<DecisionOutput>> decisions;
  std::vector<std::vector<std::vector<float>>> embeddings;
  std::vector<uint64_t> weights_bytes;
  for (int way = 0; way < 4; ++way) {
    CAPTURE(way);
    Session session;
    testing::configure_from(session, dir + "/checkpoint");
    if (way == 0) load_staged(session, bytes_of(source), kQ8StageBytes);
    if (way == 1) load_staged(session, bytes_of(source), 1000);
    if (way == 2) load_file(session, q8_file);
    if (way == 3) load_file(session, q8_file, WeightsMode::kQ8);
    auto d = session.forward_decisions(batch, false);
    auto e = session.forward_embeddings(embed_batch, false);
    REQUIRE(d.ok());
    REQUIRE(e.ok());
    decisions.push_back(std::move(d).value());
    embeddings.push_back(std::move(e).value());
    weights_bytes.push_back(session.memory().weights_bytes);
  }
  for (size_t w = 1; w < decisions.size(); ++w) {
    CHECK(weights_bytes[w] == weights_bytes[0]);
    for (size_t s = 0; s < decisions[0].size(); ++s) {
      REQUIRE(decisions[w][s].logits == decisions[0][s].logits);
      REQUIRE(decisions[w][s].act == decisions[0][s].act);
    }
    for (size_t i = 0; i < embeddings[0].size(); ++i) REQUIRE(embeddings[w][i] == embeddings[0][i]);
  }

  Fidelity f;
  const json::Value& expected = *fixture.value().find("expected");
  for (size_t s = 0; s < decisions[0].size(); ++s) {
    f.compare(decisions[0][s].logits, doubles(*expected.items()[s].find("logits")), f.max_prob_diff);
    f.compare(decisions[0][s].act, doubles(*expected.items()[s].find("act")), f.max_act_prob_diff);
  }
  const json::Value& embed_expected = *fixture.value().find("embed_expected");
  for (size_t i = 0; i < embeddings[0].size(); ++i) {
    const std::vector<double> want = doubles(*embed_expected.items()[i].find("pooled"));
    const std::vector<float>& got = embeddings[0][i];
    REQUIRE(got.size() == want.size());
    double dot = 0, gg = 0, ww = 0;
    for (size_t j = 0; j < got.size(); ++j) {
      dot += got[j] * want[j];
      gg += double(got[j]) * got[j];
      ww += want[j] * want[j];
    }
    f.min_cosine = std::min(f.min_cosine, dot / std::sqrt(gg * ww));
  }

  auto header = safetensors::parse_file_header(bytes_of(source));
  REQUIRE(header.ok());
  uint64_t params = 0;
  for (const auto& t : header.value().tensors) {
    uint64_t n = 1;
    for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);
    params += n;
  }
  const double per_param = static_cast<double>(q8_file.size()) / static_cast<double>(params);
  const double data_per_param =
      static_cast<double>(converted_data_length(q8_file)) / static_cast<double>(params);
  std::printf("%s q8: max probability difference %.4g (act logits %.4g); argmax changed %d of %d decisions "
              "(logits and act) with a top-two margin >= 0.02; min embedding cosine %.6f; %.4f bytes per parameter "
              "(file %zu bytes, data section %.4f per parameter; source %zu bytes, %llu parameters); weights in "
              "memory %llu bytes\n",
              name, f.max_prob_diff, f.max_act_prob_diff, f.argmax_changed, f.argmax_checked, f.min_cosine, per_param,
              q8_file.size(), data_per_param, source.size(), static_cast<unsigned long long>(params),
              static_cast<unsigned long long>(weights_bytes[0]));
  CHECK(f.max_prob_diff <= 0.01);
  CHECK(f.argmax_changed == 0);
  CHECK(f.argmax_checked > 0);
  CHECK(f.min_cosine >= 0.999);
  if (size_target) CHECK(per_param <= 1.12);
}

TEST_CASE("tiny-fanin (F32) in q8: the same bits streamed or converted, within the fidelity targets") {
  check_fixture("tiny-fanin", false);
}

TEST_CASE("small-fanin (F16) in q8: the same bits streamed or converted, within the fidelity targets") {
  check_fixture("small-fanin", true);
}

TEST_CASE("quantizing while loading rejects a matrix that is not finite, naming it, and a short data section") {
  const std::string dir = testing::reference_dir("tiny-fanin");
  std::string file = testing::read_file(dir + "/checkpoint/model.safetensors");
  auto header = safetensors::parse_file_header(bytes_of(file));
  REQUIRE(header.ok());
  const auto* wo = header.value().find("encoder.layers.0.attn.Wo.weight");
  REQUIRE(wo != nullptr);
  REQUIRE(wo->dtype == DType::kF32);
  const float nan = std::nanf("");
  std::memcpy(file.data() + header.value().data_offset + wo->begin + 4 * 70, &nan, 4);
  Session session;
  testing::configure_from(session, dir + "/checkpoint");
  auto plan = session.plan_weights(bytes_of(file).first(header.value().data_offset), file.size(), WeightsMode::kQ8);
  REQUIRE(plan.ok());
  Status failed;
  for (size_t at = 0; at < plan.value().data_length && failed.ok(); at += plan.value().stage_bytes) {
    const size_t n = std::min<size_t>(plan.value().stage_bytes, plan.value().data_length - at);
    std::memcpy(plan.value().stage, file.data() + plan.value().data_offset + at, n);
    failed = session.weights_staged(n);
  }
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK_MESSAGE(failed.error().message.find("encoder.layers.0.attn.Wo.weight holds a value that is not finite (row 1, column 6)") !=
                    std::string::npos,
                failed.error().message);

  Session short_session;
  testing::configure_from(short_session, dir + "/checkpoint");
  auto plan2 = short_session.plan_weights(bytes_of(file).first(header.value().data_offset), file.size(), WeightsMode::kQ8);
  REQUIRE(plan2.ok());
  REQUIRE(short_session.weights_staged(100).ok());
  CHECK_FALSE(short_session.weights_written(100).ok());  // the staged plan takes no direct writes
  Status s = short_session.finish_weights();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("ended before every weight was quantized") != std::string::npos);
}

}  // namespace
}  // namespace laya
