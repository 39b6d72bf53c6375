// predict_long's rules (laya-spec-current §7) over scripted tools: the window budget and its
// messages, where windows start, the single-window path, the windows decoded and answered as text
// states, the most confident window kept per question (earliest on a tie) with its "window"
// member, and usage merged as upstream's loop merges it. Expected values are worked from the
// spec's formulas by hand.
#include "decide/long_state.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using laya::ErrorCode;
using laya::Result;
using laya::json::Value;
using laya::decide::Budgets;
using laya::decide::LongStateOptions;
using laya::decide::LongStateTools;
using laya::decide::merge_window_responses;
using laya::decide::plan_windows;
using laya::decide::predict_long;
using laya::decide::window_starts;
using laya::decide::WindowPlan;

namespace {

const Budgets kBudgets{.max_len = 512, .head_max_len = 192};

Value object_with(std::vector<laya::json::Member> members) { return Value::object(std::move(members)); }

}  // namespace

TEST_CASE("the default window is max(64, max_len - head_max_len - 8), cut to the smallest room any question leaves") {
  // requested = max(64, 512 - 192 - 8) = 312; room_q = 512 - 100 - 1 = 411 and 512 - 300 - 1 = 211.
  Result<WindowPlan> plan = plan_windows({100, 300}, kBudgets, {});
  REQUIRE(plan.ok());
  CHECK(plan.value().room == 211);
  CHECK(plan.value().size == 211);
  CHECK(plan.value().step == 105);  // size // 2
  CHECK_FALSE(plan.value().explicit_window);
  // A small checkpoint: max(64, 128 - 96 - 8) = 64.
  Result<WindowPlan> small = plan_windows({10}, Budgets{.max_len = 128, .head_max_len = 96}, {});
  CHECK(small.value().size == 64);
}

TEST_CASE("an explicit window and stride are kept when the questions leave room for them") {
  Result<WindowPlan> plan = plan_windows({100}, kBudgets, LongStateOptions{.window = 50, .stride = 50});
  CHECK(plan.value().size == 50);
  CHECK(plan.value().step == 50);
  CHECK(plan.value().explicit_window);
}

TEST_CASE("questions whose options fill the sequence leave no window, in upstream's words") {
  Result<WindowPlan> plan = plan_windows({100, 511}, kBudgets, {});
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().code == ErrorCode::kInvalidRequest);
  CHECK(plan.error().message ==
        "predict_long: the questions' options fill the whole sequence (max_len=512, head_max_len=192), leaving no room for "
        "the state; no window can carry any of it. A label set this large is what laya.shortlist.predict_shortlist is for");
}

TEST_CASE("a stride past the window is refused, naming the gap; past a reduced window it falls back to half with a warning") {
  Result<WindowPlan> past = plan_windows({100}, kBudgets, LongStateOptions{.window = 40, .stride = 50});
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().message ==
        "predict_long: stride=50 steps past the 40-token window, so 10 tokens between every pair of windows would be read "
        "by no window at all; pass stride <= 40");
  // room = 512 - 400 - 1 = 111 < requested 300: the window is reduced; stride 200 <= 300 falls back to 111 // 2.
  Result<WindowPlan> reduced = plan_windows({400}, kBudgets, LongStateOptions{.window = 300, .stride = 200});
  CHECK(reduced.value().size == 111);
  CHECK(reduced.value().step == 55);
  // A stride beyond even the requested window is refused with the reduced-window wording.
  Result<WindowPlan> beyond = plan_windows({400}, kBudgets, LongStateOptions{.window = 300, .stride = 301});
  CHECK(beyond.error().message ==
        "predict_long: stride=301 steps past the 111-token window these questions leave room for, so 190 tokens between "
        "every pair of windows would be read by no window at all; pass stride <= 111");
}

TEST_CASE("windows start every step and stop with the first that reaches the end") {
  const WindowPlan plan{.size = 4, .step = 2, .room = 4};
  CHECK(window_starts(10, plan) == std::vector<int64_t>{0, 2, 4, 6});  // 6 + 4 >= 10
  CHECK(window_starts(9, plan) == std::vector<int64_t>{0, 2, 4, 6});   // the last is 3 tokens
  CHECK(window_starts(5, plan) == std::vector<int64_t>{0, 2});
}

TEST_CASE("per question the most confident window's answer is kept whole, the earliest on a tie, with where it came from") {
  const std::vector<std::string> responses = {
      R"({"model": "laya-rl-agent", "answers": {"n": {"type": "noul", "noul": 0.25, "confidence": 0.5}, "c": {"type": "choice", "choice": "a", "probabilities": {"a": 0.7, "b": 0.3}, "confidence": 0.4, "answer_confidence": 0.7}}, "usage": {"input_tokens": 10, "output_tokens": 0, "state_tokens": 4, "state_tokens_dropped": 0, "truncated": false, "truncated_questions": []}})",
      R"({"model": "laya-rl-agent", "answers": {"n": {"type": "noul", "noul": 0.9, "confidence": 0.8}, "c": {"type": "choice", "choice": "b", "probabilities": {"a": 0.3, "b": 0.7}, "confidence": 0.4, "answer_confidence": 0.7}}, "usage": {"input_tokens": 12, "output_tokens": 0, "state_tokens": 4, "state_tokens_dropped": 1, "truncated": true, "truncated_questions": ["c"], "options": {"c": {"total": 2, "distinct": 1, "tokens_per_option": 3}}}})",
      R"({"model": "laya-rl-agent", "answers": {"n": {"type": "noul", "noul": 0.9, "confidence": 0.9}, "c": {"type": "choice", "choice": "a", "probabilities": {"a": 0.6, "b": 0.4}, "confidence": 0.2, "answer_confidence": 0.6}}, "usage": {"input_tokens": 11, "output_tokens": 0, "state_tokens": 2, "state_tokens_dropped": 0, "truncated": true, "truncated_questions": []}})",
  };
  Result<std::string> merged = merge_window_responses(responses, {0, 2, 4}, 4, 6);
  REQUIRE(merged.ok());
  CHECK(merged.value() ==
        R"({"model": "laya-rl-agent", "answers": {)"
        // noul: 0.9 twice, the earlier (window 1) wins.
        R"("n": {"type": "noul", "noul": 0.9, "confidence": 0.8, "window": {"index": 1, "token_start": 2, "token_end": 6, "count": 3}}, )"
        // choice: answer_confidence 0.7 twice, window 0 wins; its token_end is min(0 + 4, 6).
        R"("c": {"type": "choice", "choice": "a", "probabilities": {"a": 0.7, "b": 0.3}, "confidence": 0.4, "answer_confidence": 0.7, "window": {"index": 0, "token_start": 0, "token_end": 4, "count": 3}}}, )"
        // Numbers summed, truncated counted, the list the last window's, options merged, output_tokens 0.
        R"("usage": {"input_tokens": 33, "output_tokens": 0, "state_tokens": 10, "state_tokens_dropped": 1, "truncated": 2, "truncated_questions": [], "options": {"c": {"total": 2, "distinct": 1, "tokens_per_option": 3}}, "windows": 3}})");
}

namespace {

// Tools over a "tokenizer" that maps each character to one id, and a model that records its calls.
struct ScriptedTools {
  std::vector<std::string> predicted;
  std::vector<std::vector<std::string>> batched;
  size_t head_length = 500;  // room = 512 - 500 - 1 = 11

  LongStateTools tools() {
    return LongStateTools{
        .state_ids = [](const Value& state) {
          std::vector<int32_t> ids;
          for (char c : state.as_string()) ids.push_back(c);
          return ids;
        },
        .head_lengths = [this](const Value& questions) -> Result<std::vector<size_t>> {
          return std::vector<size_t>(questions.members().size(), head_length);
        },
        .decode = [](std::span<const int32_t> ids) -> Result<std::string> {
          std::string text;
          for (int32_t id : ids) text += static_cast<char>(id);
          return text;
        },
        .predict = [this](const Value& state) -> Result<std::string> {
          predicted.push_back(state.as_string());
          return std::string(R"({"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}})");
        },
        .predict_batch = [this](const std::vector<Value>& states) -> Result<std::vector<std::string>> {
          std::vector<std::string> texts, responses;
          for (const Value& s : states) {
            texts.push_back(s.as_string());
            responses.push_back(R"({"model": "laya-rl-agent", "answers": {"q": {"type": "noul", "noul": )" +
                                std::to_string(texts.size()) + R"(}}, "usage": {"input_tokens": 1, "output_tokens": 0}})");
          }
          batched.push_back(texts);
          return responses;
        },
    };
  }
};

const Value kOneQuestion = object_with({{"q", object_with({{"type", Value::string("noul")}})}});

}  // namespace

TEST_CASE("a state that fits the room is one plain predict, with usage.windows 1 appended") {
  ScriptedTools scripted;
  Result<std::string> out = predict_long(Value::string("abcdefghijk"), kOneQuestion, {}, kBudgets, scripted.tools());
  REQUIRE(out.ok());
  CHECK(scripted.predicted == std::vector<std::string>{"abcdefghijk"});
  CHECK(out.value() == R"({"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0, "windows": 1}})");
}

TEST_CASE("a longer state is cut into windows of the room, stepping half of it, each decoded and answered as a text state") {
  ScriptedTools scripted;
  // 12 ids, room 11 (window 11, step 5): windows at 0 and 5 (5 + 11 >= 12).
  Result<std::string> out = predict_long(Value::string("abcdefghijkl"), kOneQuestion, {}, kBudgets, scripted.tools());
  REQUIRE(out.ok());
  CHECK(scripted.predicted.empty());
  CHECK(scripted.batched == std::vector<std::vector<std::string>>{{"abcdefghijk", "fghijkl"}});
  CHECK(out.value() ==
        R"({"model": "laya-rl-agent", "answers": {"q": {"type": "noul", "noul": 2, "window": {"index": 1, "token_start": 5, "token_end": 12, "count": 2}}}, )"
        R"("usage": {"input_tokens": 2, "output_tokens": 0, "windows": 2}})");
}

TEST_CASE("an explicit window decides the single-window path by its own size") {
  ScriptedTools scripted;
  // |S| = 8 <= room 11 but > the explicit window 6: windows at 0 and 3 (3 + 6 >= 8).
  Result<std::string> out =
      predict_long(Value::string("abcdefgh"), kOneQuestion, LongStateOptions{.window = 6}, kBudgets, scripted.tools());
  REQUIRE(out.ok());
  CHECK(scripted.batched == std::vector<std::vector<std::string>>{{"abcdef", "defgh"}});
}

TEST_CASE("a null state and questions that are not an object are refused first, in upstream's words") {
  ScriptedTools scripted;
  CHECK(predict_long(Value(), kOneQuestion, {}, kBudgets, scripted.tools()).error().message ==
        "state must not be None; pass a string, dict, or list");
  CHECK(predict_long(Value::string("s"), Value::array({}), {}, kBudgets, scripted.tools()).error().message ==
        "questions must be a dict of question id -> definition, got list");
}

TEST_CASE("an aggregation other than 'auto' is refused after the state and questions are checked") {
  ScriptedTools scripted;
  LongStateOptions mean;
  mean.aggregate = "mean";
  CHECK(predict_long(Value::string("s"), kOneQuestion, mean, kBudgets, scripted.tools()).error().message ==
        "predict_long: only aggregate='auto' is supported");
  CHECK(predict_long(Value(), kOneQuestion, mean, kBudgets, scripted.tools()).error().message ==
        "state must not be None; pass a string, dict, or list");
}
