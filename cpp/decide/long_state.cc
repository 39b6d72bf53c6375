#include "decide/long_state.h"

#include <algorithm>
#include <utility>

#include "decide/pyfloat.h"
#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {

namespace {

std::string integer(int64_t v) { return std::to_string(v); }

// Upstream's window_budget default: the sequence less the head's share and a margin.
int64_t default_window(const Budgets& budgets) {
  return std::max<int64_t>(64, budgets.max_len - budgets.head_max_len - 8);
}

// The value a window is ranked by (§7.4): the rounded noul for a noul, else the rounded
// answer_confidence (confidence in shapes that write none).
double rank_of(const json::Value& answer) {
  const json::Value* type = answer.find("type");
  const bool noul = type != nullptr && type->is_string() && type->as_string() == "noul";
  const json::Value* value = answer.find(noul ? "noul" : "answer_confidence");
  if (value == nullptr && !noul) value = answer.find("confidence");
  return value != nullptr && value->is_number() ? value->as_double() : 0.0;
}

// One usage value as the running merge holds it (§7.6): a sum, a dict merged per key, or the last value.
struct UsageEntry {
  std::string key;
  enum class Kind { kSum, kDict, kLast } kind = Kind::kLast;
  int64_t int_sum = 0;
  double float_sum = 0;
  bool has_float = false;
  std::vector<json::Member> dict;
  json::Value last;
};

// The entry emptied and made of `kind` (its key kept): a value of another kind starts it over.
void restart(UsageEntry& entry, UsageEntry::Kind kind) {
  std::string key = std::move(entry.key);
  entry = UsageEntry();
  entry.key = std::move(key);
  entry.kind = kind;
}

void merge_usage_value(UsageEntry& entry, const json::Value& value) {
  if (value.is_bool() || value.is_number()) {
    // Python adds bools as ints: "truncated" becomes a count of cut windows.
    if (entry.kind != UsageEntry::Kind::kSum) restart(entry, UsageEntry::Kind::kSum);
    if (value.is_bool()) {
      entry.int_sum += value.as_bool() ? 1 : 0;
    } else if (std::optional<int64_t> i = value.is_integer() ? value.as_int64() : std::nullopt) {
      entry.int_sum += *i;
    } else {
      entry.has_float = true;
      entry.float_sum += value.as_double();
    }
  } else if (value.is_object()) {
    if (entry.kind != UsageEntry::Kind::kDict) restart(entry, UsageEntry::Kind::kDict);
    for (const json::Member& m : value.members()) {
      auto it = std::find_if(entry.dict.begin(), entry.dict.end(), [&](const json::Member& d) { return d.first == m.first; });
      if (it == entry.dict.end()) entry.dict.push_back(m);
      else it->second = m.second;
    }
  } else {
    restart(entry, UsageEntry::Kind::kLast);
    entry.last = value;
  }
}

void append_usage_entry(std::string& out, const UsageEntry& entry) {
  json::append_quoted(out, entry.key, /*ensure_ascii=*/false);
  out += ": ";
  switch (entry.kind) {
    case UsageEntry::Kind::kSum:
      out += entry.has_float ? float_json(static_cast<double>(entry.int_sum) + entry.float_sum) : integer(entry.int_sum);
      break;
    case UsageEntry::Kind::kDict:
      append_dumps(out, json::Value::object(entry.dict), /*ensure_ascii=*/false);
      break;
    case UsageEntry::Kind::kLast:
      append_dumps(out, entry.last, /*ensure_ascii=*/false);
      break;
  }
}

}  // namespace

Result<WindowPlan> plan_windows(const std::vector<size_t>& head_lengths, const Budgets& budgets,
                                const LongStateOptions& options) {
  WindowPlan plan;
  plan.explicit_window = options.window > 0;
  const int64_t requested = plan.explicit_window ? options.window : default_window(budgets);
  plan.room = requested;
  for (size_t i = 0; i < head_lengths.size(); ++i) {
    const int64_t room_q = std::max<int64_t>(0, budgets.max_len - static_cast<int64_t>(head_lengths[i]) - 1);
    plan.room = i == 0 ? room_q : std::min(plan.room, room_q);
  }
  if (plan.room <= 0) {
    return invalid_request("predict_long: the questions' options fill the whole sequence (max_len=" + integer(budgets.max_len) +
                           ", head_max_len=" + integer(budgets.head_max_len) +
                           "), leaving no room for the state; no window can carry any of it. A label set this large is "
                           "what laya.shortlist.predict_shortlist is for");
  }
  plan.size = std::min(requested, plan.room);
  plan.step = options.stride > 0 ? options.stride : std::max<int64_t>(1, plan.size / 2);
  if (plan.step > plan.size) {
    const bool reduced = plan.size < requested;
    if (reduced && options.stride > 0 && options.stride <= requested) {
      // Upstream warns and halves the reduced window instead.
      plan.step = std::max<int64_t>(1, plan.size / 2);
    } else {
      return invalid_request("predict_long: stride=" + integer(plan.step) + " steps past the " + integer(plan.size) +
                             "-token window" + (reduced ? " these questions leave room for" : "") + ", so " +
                             integer(plan.step - plan.size) +
                             " tokens between every pair of windows would be read by no window at all; pass stride <= " +
                             integer(plan.size));
    }
  }
  return plan;
}

std::vector<int64_t> window_starts(int64_t state_tokens, const WindowPlan& plan) {
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < state_tokens; i += plan.step) {
    starts.push_back(i);
    if (i + plan.size >= state_tokens) break;
  }
  return starts;
}

Result<std::string> merge_window_responses(const std::vector<std::string>& responses, const std::vector<int64_t>& starts,
                                           int64_t size, int64_t state_tokens) {
  std::vector<json::Value> parsed;
  for (const std::string& text : responses) {
    LAYA_ASSIGN_OR_RETURN(json::Value response, json::parse(text, "a window's response", {.allow_nonfinite = true}));
    const json::Value* answers = response.find("answers");
    const json::Value* usage = response.find("usage");
    if (answers == nullptr || !answers->is_object() || usage == nullptr || !usage->is_object()) {
      return internal_error("predict_long: a window's response has no answers or usage object");
    }
    parsed.push_back(std::move(response));
  }
  if (parsed.empty()) return internal_error("predict_long: no window was answered");
  const int64_t count = static_cast<int64_t>(parsed.size());
  std::string out = "{\"model\": \"laya-rl-agent\", \"answers\": {";
  const std::vector<json::Member>& questions = parsed[0].find("answers")->members();
  for (size_t q = 0; q < questions.size(); ++q) {
    const std::string& id = questions[q].first;
    size_t best = 0;
    double best_rank = 0;
    for (size_t w = 0; w < parsed.size(); ++w) {
      const json::Value* answer = parsed[w].find("answers")->find(id);
      if (answer == nullptr) return internal_error("predict_long: a window has no answer for question " + id);
      const double rank = rank_of(*answer);
      if (w == 0 || rank > best_rank) {  // ties: the earliest window
        best = w;
        best_rank = rank;
      }
    }
    const json::Value& chosen = *parsed[best].find("answers")->find(id);
    std::string answer = dumps(chosen, /*ensure_ascii=*/false);
    answer.pop_back();  // its closing brace: "window" goes last
    const int64_t start = starts[best];
    answer += ", \"window\": {\"index\": " + integer(static_cast<int64_t>(best)) + ", \"token_start\": " + integer(start) +
              ", \"token_end\": " + integer(std::min(start + size, state_tokens)) + ", \"count\": " + integer(count) + "}}";
    if (q) out += ", ";
    json::append_quoted(out, id, /*ensure_ascii=*/false);
    out += ": " + answer;
  }
  out += "}, \"usage\": {";
  std::vector<UsageEntry> usage;
  for (const json::Value& response : parsed) {
    for (const json::Member& m : response.find("usage")->members()) {
      auto it = std::find_if(usage.begin(), usage.end(), [&](const UsageEntry& e) { return e.key == m.first; });
      if (it == usage.end()) {
        usage.emplace_back();
        usage.back().key = m.first;
        it = usage.end() - 1;
      }
      merge_usage_value(*it, m.second);
    }
  }
  for (UsageEntry& entry : usage) {
    if (entry.key == "output_tokens") restart(entry, UsageEntry::Kind::kSum);
    append_usage_entry(out, entry);
    out += ", ";
  }
  out += "\"windows\": " + integer(count) + "}}";
  return out;
}

Result<std::string> predict_long(const json::Value& state, const json::Value& questions, const LongStateOptions& options,
                                 const Budgets& budgets, const LongStateTools& tools) {
  if (state.is_null()) return invalid_request("state must not be None; pass a string, dict, or list");
  if (!questions.is_object()) {
    return invalid_request(std::string("questions must be a dict of question id -> definition, got ") +
                           python_type_name(questions));
  }
  if (options.aggregate != "auto") return invalid_request("predict_long: only aggregate='auto' is supported");
  LAYA_ASSIGN_OR_RETURN(std::vector<size_t> heads, tools.head_lengths(questions));
  LAYA_ASSIGN_OR_RETURN(WindowPlan plan, plan_windows(heads, budgets, options));
  const std::vector<int32_t> ids = tools.state_ids(state);
  const int64_t state_tokens = static_cast<int64_t>(ids.size());
  if (state_tokens <= (plan.explicit_window ? plan.size : plan.room)) {
    LAYA_ASSIGN_OR_RETURN(std::string response, tools.predict(state));
    // usage is the response's last member: "windows" goes last inside it.
    if (response.size() < 2 || response.compare(response.size() - 2, 2, "}}") != 0) {
      return internal_error("predict_long: the response does not end with its usage object");
    }
    response.insert(response.size() - 2, ", \"windows\": 1");
    return response;
  }
  const std::vector<int64_t> starts = window_starts(state_tokens, plan);
  std::vector<json::Value> windows;
  windows.reserve(starts.size());
  for (const int64_t start : starts) {
    const int64_t end = std::min(start + plan.size, state_tokens);
    LAYA_ASSIGN_OR_RETURN(std::string text, tools.decode(std::span<const int32_t>(ids).subspan(
                                                static_cast<size_t>(start), static_cast<size_t>(end - start))));
    windows.push_back(json::Value::string(std::move(text)));
  }
  LAYA_ASSIGN_OR_RETURN(std::vector<std::string> responses, tools.predict_batch(windows));
  return merge_window_responses(responses, starts, plan.size, state_tokens);
}

}  // namespace laya::decide
