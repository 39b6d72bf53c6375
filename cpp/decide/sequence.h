// One question's token sequence, upstream's build_sequence (laya-spec §4.4):
//   [CLS] head [SEP] [MASK] opt0 [MASK] opt1 ... [SEP] state [SEP]
// with the head and the options sharing head_max_len, the state taking what max_len leaves, and a
// marker at each option's [MASK].
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace laya::decide {

struct SpecialIds {
  int32_t cls = 0;
  int32_t sep = 0;
  int32_t mask = 0;
};

struct Budgets {
  int max_len = 512;       // rl_agent_config.json `max_len`: the whole sequence
  int head_max_len = 192;  // `head_max_len`: the head and the options
};

// Each option keeps at most this many of its own tokens (the tokenizer's max_length=48).
inline constexpr size_t kMaxOptionTokens = 48;

// What the head budget did to the options (current upstream reports it as usage.options when
// distinct < total).
struct OptionStats {
  int total = 0;                           // options the question defines
  int distinct = 0;                        // options whose capped id spans still differ
  std::optional<int> tokens_per_option;    // the cap `per` when the options were cut
};

struct Sequence {
  std::vector<int32_t> ids;
  std::vector<int32_t> markers;  // index of each option's [MASK] in `ids`
  OptionStats options;
  size_t state_kept = 0;         // state ids in `ids`: min(room, state size)
};

// The error when markers fall past max_len: "question 'q' options exceed head_max_len=N" up to
// 0.3.21, "question 'q': only M of its K option markers fit in max_len=L with head_max_len=N ..." on.
enum class MarkerFitMessage { kOptionsExceedHeadMaxLen, kOnlyMarkersFit };

// `head_ids`, `option_ids` and `state_ids` are the tokenizer's ids without special tokens; options
// are passed whole and capped here. `truncate_left` keeps the end of the state (upstream does it
// for JSON-array states: the newest conversation turn is last). Fails with invalid_request when a
// marker falls past max_len, in the words `message` names (older upstream's names head_max_len,
// although max_len is the budget that ran out).
Result<Sequence> build_sequence(std::string_view question_id, const std::vector<int32_t>& head_ids,
                                const std::vector<std::vector<int32_t>>& option_ids,
                                const std::vector<int32_t>& state_ids, bool truncate_left,
                                const SpecialIds& special, const Budgets& budgets,
                                MarkerFitMessage message = MarkerFitMessage::kOptionsExceedHeadMaxLen);

}  // namespace laya::decide
