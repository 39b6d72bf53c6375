// Hostile requests through Session::predict on the tiny-fanin reference checkpoint (a WordLevel
// tokenizer: words w<id>, [MASK] = 511): every validation error of laya-spec §4.1 with upstream's
// message, options that cannot fit (laya-spec §4.4 step 9), huge and deeply nested states, mask
// literals in user text, non-finite numbers, an empty question set; non-finite weights reaching the
// logits (small-fanin with F16 inf / NaN in the scorer); and batches shuffled giving the same bits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "decide/request.h"
#include "safetensors/header.h"
#include "session/fixture_files.h"
#include "session/session.h"
#include "util/json.h"

namespace laya {
namespace {

Session& tiny() {
  return testing::tiny_session();
}

json::Value parse(const std::string& text, bool allow_nonfinite = false) {
  auto v = json::parse(text, "test", {.allow_nonfinite = allow_nonfinite});
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
  return v.value();
}

Result<std::string> predict(const json::Value& state, const std::string& questions) {
  return tiny().predict(state, parse(questions), decide::Dialect::v0_3_21());
}

const std::string kGoodQuestion = R"({"q": {"type": "choice", "instructions": "w7 w8", "criteria": ["w9", "w10"]}})";

struct HostileRequest {
  const char* fault;
  std::string questions;
  std::vector<std::string> message_parts;  // current upstream's ValueError text (laya-spec §4.1, §4.4)
};

TEST_CASE("every validation error of laya-spec §4.1 is an invalid_request with upstream's message") {
  const std::vector<HostileRequest> table = {
      {"questions not an object", R"([1, 2])", {"questions must be a dict"}},
      {"definition not an object", R"({"q": 5})", {"question 'q': definition must be a dict, got int"}},
      {"definition a list", R"({"q": []})", {"question 'q': definition must be a dict, got list"}},
      {"unknown type", R"({"q": {"type": "rank", "instructions": "w1"}})",
       {"question 'q': unknown type", "rank", "use one of ['choice', 'noul', 'score']"}},
      {"no instructions", R"({"q": {"type": "choice", "criteria": ["w1"]}})",
       {"question 'q': no 'instructions'; add the text the model should answer"}},
      {"choice criteria a number", R"({"q": {"type": "choice", "instructions": "w1", "criteria": 5}})",
       {"question 'q': a choice question takes 'criteria' as a dict of label -> description, or a list of labels"}},
      {"choice criteria absent", R"({"q": {"type": "choice", "instructions": "w1"}})",
       {"question 'q': a choice question takes 'criteria'"}},
      {"choice criteria empty list", R"({"q": {"type": "choice", "instructions": "w1", "criteria": []}})",
       {"question 'q': a choice question needs at least one criterion"}},
      {"choice criteria empty dict", R"({"q": {"type": "choice", "instructions": "w1", "criteria": {}}})",
       {"question 'q': a choice question needs at least one criterion"}},
      {"non-scalar label", R"({"q": {"type": "choice", "instructions": "w1", "criteria": ["w2", [1]]}})",
       {"question 'q': choice label 1 is a list"}},
      {"score criteria a dict", R"({"q": {"type": "score", "instructions": "w1", "criteria": {"a": 1}}})",
       {"takes 'criteria' as a list of level descriptions, index 0 first"}},
      {"score criteria empty", R"({"q": {"type": "score", "instructions": "w1", "criteria": []}})",
       {"needs at least one level"}},
      {"score level null", R"({"q": {"type": "score", "instructions": "w1", "criteria": ["w2", null]}})",
       {"score level 1 is null"}},
      {"noul criteria a list", R"({"q": {"type": "noul", "instructions": "w1", "criteria": ["w2"]}})",
       {"a noul question takes 'criteria' as a dict with optional 'true'/'false' descriptions, or omits it"}},
      {"noul criteria with another key", R"({"q": {"type": "noul", "instructions": "w1", "criteria": {"maybe": "w2"}}})",
       {"question 'q'", "maybe"}},
      {"labels on a choice question",
       R"({"q": {"type": "choice", "instructions": "w1", "criteria": ["w2"], "labels": {"false": "a", "true": "b"}}})",
       {"'labels' is only supported for noul questions"}},
      {"noul labels not distinct",
       R"({"q": {"type": "noul", "instructions": "w1", "labels": {"false": "w2", "true": "w2"}}})",
       {"noul labels must map exactly 'false' and 'true' to distinct non-empty strings"}},
      {"noul labels missing a key", R"({"q": {"type": "noul", "instructions": "w1", "labels": {"true": "w2"}}})",
       {"noul labels must map exactly 'false' and 'true' to distinct non-empty strings"}},
      {"a bad question after a good one",
       R"({"ok": {"type": "noul", "instructions": "w1"}, "bad": {"type": "score", "instructions": "w1", "criteria": []}})",
       {"question 'bad'", "needs at least one level"}},
  };
  size_t rejected = 0;
  for (const HostileRequest& h : table) {
    CAPTURE(h.fault);
    auto r = predict(json::Value::string("w5 w6"), h.questions);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidRequest);
    for (const std::string& part : h.message_parts) {
      CHECK_MESSAGE(r.error().message.find(part) != std::string::npos, "\"" << part << "\" not in: " << r.error().message);
    }
    ++rejected;
  }
  // The session still answers afterwards.
  CHECK(predict(json::Value::string("w5 w6"), kGoodQuestion).ok());
  std::printf("hostile requests (laya-spec §4.1): %zu tried, %zu rejected\n", table.size(), rejected);
}

std::string many_options(int count) {
  std::string q = R"({"crowded": {"type": "choice", "instructions": "w1 w2", "criteria": [)";
  for (int i = 0; i < count; ++i) q += (i ? ", \"w" : "\"w") + std::to_string(4 + i % 500) + "_" + std::to_string(i) + "\"";
  return q + "]}}";
}

TEST_CASE("options that cannot fit max_len are rejected as upstream does, naming the question and head_max_len") {
  // Each option is [MASK] + one id: 300 of them need 600 ids, beyond max_len = 512.
  auto r = predict(json::Value::string("w5"), many_options(300));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidRequest);
  CHECK(r.error().message == "question 'crowded' options exceed head_max_len=192");
  // 200 options (400 ids) still fit: the binding limit is max_len (laya-spec §4.4).
  CHECK(predict(json::Value::string("w5"), many_options(200)).ok());
}

size_t count_of(const std::vector<int32_t>& ids, int32_t id) { return std::count(ids.begin(), ids.end(), id); }

TEST_CASE("a huge state is cut to max_len, and mask literals in user text never become markers") {
  std::string huge;
  for (int i = 0; i < 20000; ++i) huge += "w" + std::to_string(4 + i % 500) + (i % 7 == 0 ? " [MASK] " : " ");
  const json::Value state = json::Value::string(huge);
  auto prepared = tiny().prepare(state, parse(kGoodQuestion), decide::Dialect::v0_3_21());
  REQUIRE(prepared.ok());
  const auto& row = prepared.value().rows.at(0);
  CHECK(row.ids.size() == 512);
  CHECK(row.markers.size() == 2);
  CHECK(count_of(row.ids, 511) == 2);  // only the two option markers are [MASK]
  auto answered = tiny().predict(state, parse(kGoodQuestion), decide::Dialect::v0_3_21());
  REQUIRE(answered.ok());
  CHECK(answered.value().find("\"input_tokens\": 512") != std::string::npos);

  // Mask literals in the instructions and labels are scrubbed too.
  const std::string masked = R"({"q": {"type": "choice", "instructions": "w7 [MASK] w8", "criteria": {"w9 [MASK]": "[MASK]", "w10": null}}})";
  auto p = tiny().prepare(json::Value::string("[MASK][MASK] w5"), parse(masked), decide::Dialect::v0_3_21());
  REQUIRE(p.ok());
  CHECK(count_of(p.value().rows.at(0).ids, 511) == 2);
}

TEST_CASE("deeply nested, very large and non-finite JSON states are handled without a crash") {
  // Nested past the parser's depth limit: a clear error, not a stack overflow.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto too_deep = decide::parse_state(deep, decide::StateForm::kJson);
  REQUIRE_FALSE(too_deep.ok());
  CHECK(too_deep.error().message.find("state") != std::string::npos);
  // Nested within it: rendered and answered.
  const std::string nested = std::string(200, '[') + "\"w5\"" + std::string(200, ']');
  auto within = decide::parse_state(nested, decide::StateForm::kJson);
  REQUIRE(within.ok());
  CHECK(tiny().predict(within.value(), parse(kGoodQuestion), decide::Dialect::v0_3_21()).ok());

  // 5 000 members: rendered, cut to max_len, answered.
  std::string wide = "{";
  for (int i = 0; i < 5000; ++i) wide += (i ? ", \"k" : "\"k") + std::to_string(i) + "\": " + std::to_string(i);
  wide += "}";
  auto big = decide::parse_state(wide, decide::StateForm::kJson);
  REQUIRE(big.ok());
  auto answered = tiny().predict(big.value(), parse(kGoodQuestion), decide::Dialect::v0_3_21());
  REQUIRE(answered.ok());
  CHECK(answered.value().find("\"input_tokens\": 512") != std::string::npos);

  // Python's json reads NaN and Infinity in a state and json.dumps writes them back.
  auto nonfinite = decide::parse_state(R"({"a": NaN, "b": [Infinity, -Infinity]})", decide::StateForm::kJson);
  REQUIRE(nonfinite.ok());
  CHECK(tiny().predict(nonfinite.value(), parse(kGoodQuestion), decide::Dialect::v0_3_21()).ok());
}

TEST_CASE("an empty question set answers with no tokens and no answers") {
  auto r = predict(json::Value::string("w5 w6"), "{}");
  REQUIRE(r.ok());
  auto response = json::parse(r.value(), "response");
  REQUIRE(response.ok());
  CHECK(response.value().find("answers")->members().empty());
  CHECK(*response.value().find("usage")->find("input_tokens")->as_int64() == 0);
  CHECK(*response.value().find("usage")->find("output_tokens")->as_int64() == 0);
}

// small-fanin (F16) with every element of scorer.3.weight set to `bits`.
void load_with_scorer(Session& session, uint16_t bits) {
  const std::string dir = testing::reference_dir("small-fanin") + "/checkpoint";
  testing::configure_from(session, dir);
  std::string file = testing::read_file(dir + "/model.safetensors");
  auto header = safetensors::parse_file_header(std::span(reinterpret_cast<const std::byte*>(file.data()), file.size()));
  REQUIRE(header.ok());
  const safetensors::TensorEntry* scorer = header.value().find("scorer.3.weight");
  REQUIRE(scorer != nullptr);
  REQUIRE(scorer->dtype == DType::kF16);
  for (uint64_t at = scorer->begin; at < scorer->end; at += 2) {
    std::memcpy(file.data() + header.value().data_offset + at, &bits, 2);  // little-endian host
  }
  auto bytes = std::span(reinterpret_cast<const std::byte*>(file.data()), file.size());
  auto plan = session.plan_weights(bytes.first(header.value().data_offset), file.size());
  REQUIRE(plan.ok());
  std::memcpy(plan.value().pointer, file.data() + plan.value().data_offset, plan.value().data_length);
  REQUIRE(session.finish_weights().ok());
}

TEST_CASE("infinite or NaN scorer weights make that question fail with a clear error") {
  for (uint16_t bits : {uint16_t{0x7C00}, uint16_t{0x7E00}}) {
    CAPTURE(bits);
    Session session;
    load_with_scorer(session, bits);
    auto r = session.predict(json::Value::string("w5 w6"), parse(kGoodQuestion), decide::Dialect::v0_3_21());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
    CHECK_MESSAGE(r.error().message.find("question 'q'") != std::string::npos, r.error().message);
    CHECK_MESSAGE(r.error().message.find("logit") != std::string::npos, r.error().message);
  }
}

TEST_CASE("a batch gives each sequence the same bits whatever the order of the sequences") {
  Session& s = tiny();
  std::vector<decide::Row> rows;
  std::mt19937 rng(7);
  for (int n = 0; n < 24; ++n) {
    std::string state;
    for (int i = 0; i < 5 + n * 17; ++i) state += "w" + std::to_string(4 + rng() % 500) + " ";
    const std::string questions = n % 3 == 0 ? kGoodQuestion
                                  : n % 3 == 1 ? R"({"s": {"type": "score", "instructions": "w3", "criteria": ["w4", "w5", "w6"]}})"
                                               : R"({"n": {"type": "noul", "instructions": "w12"}})";
    auto p = s.prepare(json::Value::string(state), parse(questions), decide::Dialect::v0_3_21());
    REQUIRE(p.ok());
    rows.push_back(p.value().rows.at(0));
  }
  auto run = [&](const std::vector<size_t>& order) {
    Batch batch;
    for (size_t i : order) batch.add(rows[i].ids, rows[i].markers, static_cast<int32_t>(rows[i].qtype));
    auto out = s.forward_decisions(batch, false);
    REQUIRE(out.ok());
    std::vector<DecisionOutput> by_row(rows.size());
    for (size_t k = 0; k < order.size(); ++k) by_row[order[k]] = out.value()[k];
    return by_row;
  };
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto reference = run(order);
  size_t differences = 0;
  for (int shuffle = 0; shuffle < 4; ++shuffle) {
    std::shuffle(order.begin(), order.end(), rng);
    const auto got = run(order);
    for (size_t i = 0; i < rows.size(); ++i) {
      const bool same = std::memcmp(got[i].logits.data(), reference[i].logits.data(), reference[i].logits.size() * 4) == 0 &&
                        got[i].logits.size() == reference[i].logits.size() &&
                        std::memcmp(got[i].act.data(), reference[i].act.data(), reference[i].act.size() * 4) == 0;
      if (!same) ++differences;
    }
  }
  CHECK(differences == 0);
}

}  // namespace
}  // namespace laya
