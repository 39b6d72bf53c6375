#include "decide/sequence.h"

#include <doctest/doctest.h>

#include <numeric>

#include "upstream_fixture.h"

using laya::decide::Budgets;
using laya::decide::build_sequence;
using laya::decide::Sequence;
using laya::decide::SpecialIds;
using laya::decide::testing::load_upstream_cases;
using laya::decide::testing::numbers;
using laya::decide::testing::upstream_config;

namespace {

constexpr int32_t C = 1001, S = 1002, M = 1003;  // CLS, SEP, MASK of these tests
const SpecialIds kSpecial{C, S, M};
using Ids = std::vector<int32_t>;

Ids range(int32_t first, size_t n) {
  Ids v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

Sequence build(const Ids& head, const std::vector<Ids>& options, const Ids& state, bool left, Budgets b) {
  auto r = build_sequence("q", head, options, state, left, kSpecial, b);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(r).value();
}

}  // namespace

TEST_CASE("ids and markers equal upstream's on every fixture question, from the recorded piece ids") {
  const auto config = upstream_config();
  const Budgets budgets{static_cast<int>(config.find("max_len")->as_int64().value()),
                        static_cast<int>(config.find("head_max_len")->as_int64().value())};
  const SpecialIds english{50281, 50282, 50284};  // [CLS] [SEP] [MASK] of the English tokenizer
  int cases = 0, questions = 0, mismatches = 0;
  for (const auto& c : load_upstream_cases()) {
    ++cases;
    for (const auto& rec : c.recorded) {
      ++questions;
      std::vector<Ids> option_ids;
      for (const auto& o : rec.pieces.find("option_ids")->items()) option_ids.push_back(numbers<int32_t>(o));
      auto seq = build_sequence(rec.qid, numbers<int32_t>(*rec.pieces.find("head_ids")), option_ids,
                                numbers<int32_t>(*rec.pieces.find("state_ids")), c.state.is_array(), english, budgets);
      REQUIRE_MESSAGE(seq.ok(), c.id);
      if ((seq.value().ids != rec.ids || seq.value().markers != rec.markers) && ++mismatches <= 5) {
        MESSAGE(c.id << " " << rec.qid);
      }
    }
  }
  MESSAGE("built " << cases << " cases, " << questions << " questions");
  CHECK(cases == 134);
  CHECK(questions == 445);
  CHECK(mismatches == 0);
}

TEST_CASE("the layout is [CLS] head [SEP] ([MASK] option)* [SEP] state [SEP]") {
  const auto s = build({1, 2, 3}, {{10}, {20, 21}}, {7, 8, 9}, false, {512, 192});
  CHECK(s.ids == Ids{C, 1, 2, 3, S, M, 10, M, 20, 21, S, 7, 8, 9, S});
  CHECK(s.markers == Ids{5, 7});
  CHECK(s.options.total == 2);
  CHECK(s.options.distinct == 2);
  CHECK_FALSE(s.options.tokens_per_option.has_value());
}

TEST_CASE("a one-option question has one marker and an empty state ends in [SEP][SEP]") {
  const auto s = build({1}, {{10, 11}}, {}, false, {512, 192});
  CHECK(s.ids == Ids{C, 1, S, M, 10, 11, S, S});
  CHECK(s.markers == Ids{3});
}

TEST_CASE("an option keeps its first 48 tokens after the mask") {
  const auto s = build({1}, {range(100, 60)}, {}, false, {512, 192});
  Ids want{C, 1, S, M};
  const Ids kept = range(100, 48);
  want.insert(want.end(), kept.begin(), kept.end());
  want.insert(want.end(), {S, S});
  CHECK(s.ids == want);
}

TEST_CASE("crowded options are cut to per = max(4, (head_max_len - 16) // k), the mask included") {
  // 4 options of 10 tokens: 44 ids > 40 - 16, so per = (40 - 16) // 4 = 6 (the mask + 5 tokens);
  // the budget left for the head is then 40 - 24 = 16.
  std::vector<Ids> options;
  for (int32_t i = 0; i < 4; ++i) options.push_back(range(100 * (i + 1), 10));
  const auto s = build(range(1, 30), options, {}, false, {512, 40});
  Ids want{C};
  const Ids head = range(1, 16);
  want.insert(want.end(), head.begin(), head.end());
  want.push_back(S);
  for (int32_t i = 0; i < 4; ++i) {
    want.push_back(M);
    const Ids kept = range(100 * (i + 1), 5);
    want.insert(want.end(), kept.begin(), kept.end());
  }
  want.insert(want.end(), {S, S});
  CHECK(s.ids == want);
  CHECK(s.markers == Ids{18, 24, 30, 36});
  CHECK(s.options.tokens_per_option == 6);
}

TEST_CASE("the head keeps at least 8 ids and each option at least 4, whatever the budget") {
  // 10 options of 3 tokens: 40 ids; per = max(4, (20 - 16) // 10) = 4 leaves them whole; the
  // budget 20 - 40 is negative and the head still keeps max(8, -20) = 8 ids.
  std::vector<Ids> options(10, Ids{5, 6, 7});
  const auto s = build(range(1, 12), options, {}, false, {512, 20});
  CHECK(s.ids.size() == 1 + 8 + 1 + 40 + 2);
  CHECK(s.markers.front() == 10);
  CHECK(s.options.tokens_per_option == 4);
  // Options identical after the cut are counted once.
  CHECK(s.options.total == 10);
  CHECK(s.options.distinct == 1);
  // head_max_len below 16: Python's floor division of a negative budget, still per = 4.
  const auto tiny = build({1}, {range(10, 9), range(20, 9)}, {}, false, {512, 10});
  CHECK(tiny.options.tokens_per_option == 4);
  CHECK(tiny.markers == Ids{3, 7});
}

TEST_CASE("options that share a prefix collapse to one span when cut") {
  const Ids shared = range(50, 10);
  Ids a = shared, b = shared;
  a.push_back(1);
  b.push_back(2);
  const auto s = build({1}, {a, b, range(70, 11)}, {}, false, {512, 20});
  CHECK(s.options.tokens_per_option == 4);
  CHECK(s.options.total == 3);
  CHECK(s.options.distinct == 2);
}

TEST_CASE("the state takes the room max_len leaves: its start, or its end for array states") {
  // prefix [CLS] 1 [SEP] [MASK] 10 [SEP] = 6 ids; max_len 10 leaves room 3 before the last [SEP].
  const Ids state = range(200, 6);
  const auto right = build({1}, {{10}}, state, false, {10, 192});
  CHECK(right.ids == Ids{C, 1, S, M, 10, S, 200, 201, 202, S});
  const auto left = build({1}, {{10}}, state, true, {10, 192});
  CHECK(left.ids == Ids{C, 1, S, M, 10, S, 203, 204, 205, S});
  CHECK(right.state_kept == 3);
  CHECK(left.state_kept == 3);
}

TEST_CASE("the kept state count is min(room, state size), none when the prefix fills max_len") {
  CHECK(build({1}, {{10}}, range(200, 6), false, {20, 192}).state_kept == 6);  // room 13
  CHECK(build({1}, {{10}}, range(200, 13), false, {20, 192}).state_kept == 13);
  CHECK(build({1}, {{10}}, range(200, 14), false, {20, 192}).state_kept == 13);
  CHECK(build({1}, {{10, 11}}, range(200, 5), true, {8, 192}).state_kept == 0);  // room 0
  CHECK(build({1}, {{10}}, {}, false, {20, 192}).state_kept == 0);
}

TEST_CASE("with no room left a left-truncated state keeps none of its ids") {
  // prefix of 7 ids, max_len 8: room = max(0, 8 - 7 - 1) = 0.
  const auto s = build({1}, {{10, 11}}, range(200, 5), true, {8, 192});
  CHECK(s.ids == Ids{C, 1, S, M, 10, 11, S, S});
  // And with the prefix already at max_len the final cut drops the last [SEP].
  const auto full = build({1}, {{10, 11, 12}}, range(200, 5), true, {8, 192});
  CHECK(full.ids == Ids{C, 1, S, M, 10, 11, 12, S});
}

TEST_CASE("a marker past max_len fails with upstream's head_max_len message") {
  auto r = build_sequence("it's", {1, 2, 3, 4, 5, 6, 7, 8}, {{10}, {20}}, {}, false, kSpecial, {12, 192});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
  CHECK(r.error().message == "question \"it's\" options exceed head_max_len=192");
  // The last marker exactly at max_len - 1 still fits.
  auto fits = build_sequence("q", {1, 2, 3, 4, 5, 6, 7, 8}, {{10}, {20}}, {}, false, kSpecial, {13, 192});
  REQUIRE(fits.ok());
  CHECK(fits.value().markers == Ids{10, 12});
  CHECK(fits.value().ids.size() == 13);
}

TEST_CASE("from upstream 0.3.22 a marker past max_len says how many markers fit and both budgets") {
  // Prefix [CLS] 8 ids [SEP] = 10; markers at 10, 12, 14: max_len 13 keeps the first two.
  auto r = build_sequence("it's", {1, 2, 3, 4, 5, 6, 7, 8}, {{10}, {20}, {30}}, {}, false, kSpecial, {13, 100},
                          laya::decide::MarkerFitMessage::kOnlyMarkersFit);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
  CHECK(r.error().message ==
        "question \"it's\": only 2 of its 3 option markers fit in max_len=13 with head_max_len=100 spent on the "
        "question; lower head_max_len, raise max_len, or use fewer options");
}

TEST_CASE("budgets that are not positive are rejected") {
  auto r = build_sequence("q", {1}, {{2}}, {}, false, kSpecial, {0, 192});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("max_len and head_max_len must be positive") != std::string::npos);
}
