// predict_long (laya-spec-current §7, upstream 0.3.29): a state longer than one sequence holds is
// read in overlapping windows of its tokens, each window decoded back to text and answered as an
// ordinary text state; per question the most confident window's answer is kept, whole, with a
// "window" member saying where it came from, and the windows' usage is merged.
//
// The tokenizer and the model come in as functions (LongStateTools), so the rules here are tested
// without either; Session::predict_long binds them.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "decide/sequence.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

struct LongStateTools {
  // S: the state's ids as predict tokenizes it (serialized, mask literal scrubbed, no specials).
  std::function<std::vector<int32_t>(const json::Value& state)> state_ids;
  // len(H_q) for every question, in question order; fails with predict's message for bad questions.
  std::function<Result<std::vector<size_t>>(const json::Value& questions)> head_lengths;
  // The tokenizer's decode(ids): the window's text.
  std::function<Result<std::string>(std::span<const int32_t> ids)> decode;
  // predict(state) and predict_batch(text states): upstream's response JSON texts.
  std::function<Result<std::string>(const json::Value& state)> predict;
  std::function<Result<std::vector<std::string>>(const std::vector<json::Value>& states)> predict_batch;
};

struct LongStateOptions {
  int64_t window = 0;  // tokens per window; <= 0: max(64, max_len - head_max_len - 8)
  int64_t stride = 0;  // tokens between window starts; <= 0: half the window
  std::string aggregate = "auto";  // the only aggregation upstream has
};

// The window size and step of §7.2 for these questions' head lengths; fails with upstream's
// messages when the options leave no room or the stride skips tokens.
struct WindowPlan {
  int64_t size = 0;
  int64_t step = 0;
  int64_t room = 0;
  bool explicit_window = false;
};
Result<WindowPlan> plan_windows(const std::vector<size_t>& head_lengths, const Budgets& budgets,
                                const LongStateOptions& options);

// The window starts of §7.3 item 3 over a state of `state_tokens` ids.
std::vector<int64_t> window_starts(int64_t state_tokens, const WindowPlan& plan);

// The response of §7.4-7.6 from the windows' responses (in window order).
Result<std::string> merge_window_responses(const std::vector<std::string>& responses, const std::vector<int64_t>& starts,
                                           int64_t size, int64_t state_tokens);

// predict_long with the checkpoint's budgets (a call's max_len / head_max_len never apply, §7.1).
Result<std::string> predict_long(const json::Value& state, const json::Value& questions, const LongStateOptions& options,
                                 const Budgets& budgets, const LongStateTools& tools);

}  // namespace laya::decide
