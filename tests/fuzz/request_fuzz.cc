// libFuzzer harness: the request path with the English tokenizer and checkpoint config:
// parse_state (text or JSON, per the first byte) and the questions JSON split at the first NUL,
// then parse_questions and prepare_request (laya-spec §4). Every row built fits max_len, every marker
// points at [MASK], and ids stay inside the vocabulary.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "decide/answer.h"
#include "decide/question.h"
#include "decide/request.h"
#include "fuzz_common.h"
#include "laya/config.h"
#include "tok/tokenizer.h"
#include "util/json.h"

namespace {

struct English {
  laya::tok::Tokenizer tokenizer;
  laya::decide::DecideConfig config;
};

const English& english() {
  static const English e = [] {
    const std::string rl_agent = laya::fuzz::read_fixture("upstream/english/rl_agent_config.json");
    auto config = laya::parse_config(rl_agent, laya::fuzz::read_fixture("upstream/english/encoder/config.json"));
    auto tokenizer = laya::tok::Tokenizer::load(laya::fuzz::read_fixture("upstream/english/tokenizer/tokenizer.json"),
                                                laya::fuzz::read_fixture("upstream/english/tokenizer/tokenizer_config.json"));
    auto rl_json = laya::json::parse(rl_agent, "rl_agent_config.json");
    if (!config.ok() || !tokenizer.ok() || !rl_json.ok()) __builtin_trap();
    auto calibration = laya::decide::load_calibration(rl_json.value());
    if (!calibration.ok()) __builtin_trap();
    laya::decide::DecideConfig c;
    const auto& special = tokenizer.value().special_ids();
    c.special = {special.cls, special.sep, special.mask};
    c.mask_literal = tokenizer.value().mask_literal();
    c.budgets = {static_cast<int>(config.value().max_len), static_cast<int>(config.value().head_max_len)};
    c.calibration = calibration.value().calibration;
    return English{std::move(tokenizer).value(), std::move(c)};
  }();
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const English& e = english();
  if (size == 0) return 0;
  const auto form = (data[0] & 1) ? laya::decide::StateForm::kJson : laya::decide::StateForm::kText;
  auto [state_text, questions_text] =
      laya::fuzz::split_at_nul(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  auto state = laya::decide::parse_state(state_text, form);
  auto questions = laya::json::parse(questions_text, "questions");
  if (!state.ok() || !questions.ok()) return 0;
  (void)laya::decide::parse_questions(questions.value(), {});
  const laya::tok::Tokenizer* tok = &e.tokenizer;
  auto prepared = laya::decide::prepare_request(
      state.value(), questions.value(), [tok](std::string_view t) { return tok->encode(t); }, e.config);
  if (!prepared.ok()) {
    if (prepared.error().message.empty()) __builtin_trap();
    return 0;
  }
  for (const auto& row : prepared.value().rows) {
    if (row.ids.size() > static_cast<size_t>(e.config.budgets.max_len)) __builtin_trap();
    for (int32_t m : row.markers) {
      if (m < 0 || static_cast<size_t>(m) >= row.ids.size() || row.ids[m] != e.config.special.mask) __builtin_trap();
    }
    for (int32_t id : row.ids) {
      if (id < 0 || static_cast<size_t>(id) >= e.tokenizer.vocab_size()) __builtin_trap();
    }
  }
  return 0;
}
