// build_sequence step by step as common.py writes it; integer arithmetic is Python's (floor
// division of a possibly negative budget, `max` guards), so crowded questions are cut exactly as
// upstream cuts them.
#include "decide/sequence.h"

#include <algorithm>
#include <set>
#include <string>

#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

// Python's a // b for b > 0.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int64_t total_size(const std::vector<std::vector<int32_t>>& spans) {
  int64_t n = 0;
  for (const auto& s : spans) n += static_cast<int64_t>(s.size());
  return n;
}

}  // namespace

Result<Sequence> build_sequence(std::string_view question_id, const std::vector<int32_t>& head_ids,
                                const std::vector<std::vector<int32_t>>& option_ids,
                                const std::vector<int32_t>& state_ids, bool truncate_left,
                                const SpecialIds& special, const Budgets& budgets, MarkerFitMessage message) {
  if (budgets.max_len < 1 || budgets.head_max_len < 1) {
    return invalid_request("build_sequence for question " + python_str_repr(question_id) +
                           ": max_len and head_max_len must be positive, got " + std::to_string(budgets.max_len) +
                           " and " + std::to_string(budgets.head_max_len));
  }
  const int64_t head_max_len = budgets.head_max_len;
  std::vector<std::vector<int32_t>> options;
  options.reserve(option_ids.size());
  for (const auto& o : option_ids) {
    std::vector<int32_t> span{special.mask};
    span.insert(span.end(), o.begin(), o.begin() + std::min(o.size(), kMaxOptionTokens));
    options.push_back(std::move(span));
  }
  int64_t budget = head_max_len - total_size(options);
  Sequence seq;
  if (budget < 16) {
    const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(options.size()));
    const int64_t per = std::max<int64_t>(4, floor_div(head_max_len - 16, k));
    seq.options.tokens_per_option = static_cast<int>(per);
    for (auto& o : options) {
      if (static_cast<int64_t>(o.size()) > per) o.resize(static_cast<size_t>(per));
    }
    budget = head_max_len - total_size(options);
  }
  const size_t head_keep = std::min(head_ids.size(), static_cast<size_t>(std::max<int64_t>(8, budget)));

  std::vector<int32_t>& ids = seq.ids;
  ids.push_back(special.cls);
  ids.insert(ids.end(), head_ids.begin(), head_ids.begin() + head_keep);
  ids.push_back(special.sep);
  for (const auto& o : options) {
    seq.markers.push_back(static_cast<int32_t>(ids.size()));
    ids.insert(ids.end(), o.begin(), o.end());
  }
  ids.push_back(special.sep);
  const size_t room = static_cast<size_t>(
      std::max<int64_t>(0, static_cast<int64_t>(budgets.max_len) - static_cast<int64_t>(ids.size()) - 1));
  const size_t keep = std::min(room, state_ids.size());
  seq.state_kept = keep;
  // Current upstream keeps the last `room` ids for a left cut, none when room is 0 (older
  // upstream's st[-room:] kept the whole state then).
  const auto first = truncate_left ? state_ids.end() - static_cast<std::ptrdiff_t>(keep) : state_ids.begin();
  ids.insert(ids.end(), first, first + static_cast<std::ptrdiff_t>(keep));
  ids.push_back(special.sep);

  const size_t max_len = static_cast<size_t>(budgets.max_len);
  if (ids.size() > max_len) ids.resize(max_len);
  std::erase_if(seq.markers, [&](int32_t m) { return static_cast<size_t>(m) >= max_len; });
  if (seq.markers.size() != options.size()) {
    if (message == MarkerFitMessage::kOnlyMarkersFit) {
      return invalid_request("question " + python_str_repr(question_id) + ": only " +
                             std::to_string(seq.markers.size()) + " of its " + std::to_string(options.size()) +
                             " option markers fit in max_len=" + std::to_string(budgets.max_len) +
                             " with head_max_len=" + std::to_string(budgets.head_max_len) +
                             " spent on the question; lower head_max_len, raise max_len, or use fewer options");
    }
    return invalid_request("question " + python_str_repr(question_id) + " options exceed head_max_len=" +
                           std::to_string(budgets.head_max_len));
  }
  seq.options.total = static_cast<int>(options.size());
  seq.options.distinct = static_cast<int>(std::set<std::vector<int32_t>>(options.begin(), options.end()).size());
  return seq;
}

}  // namespace laya::decide
