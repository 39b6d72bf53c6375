// The texts upstream hands the tokenizer (laya-spec §4.2): the serialized state, the question head and
// each option, with the tokenizer's mask literal scrubbed to one space so that user text can
// never plant a marker.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "decide/question.h"
#include "util/json.h"

namespace laya::decide {

// serialize_state: a string verbatim, anything else json.dumps(state, ensure_ascii=False).
std::string serialize_state(const json::Value& state);

// text.replace(mask, " ") (an empty mask literal changes nothing).
std::string replace_mask(std::string_view text, std::string_view mask);

// The state text that is tokenized: serialize_state with the mask literal scrubbed.
std::string state_text(const json::Value& state, std::string_view mask);

// "<type> question: <instructions>", the mask literal scrubbed from the instructions.
std::string head_text(const Question& q, std::string_view mask);

// render_options: choice "label" or "label: description"; score "level i: level"; noul the false
// option then the true one, with the default descriptions when none is given.
std::vector<std::string> render_options(const Question& q);

// The text one option is tokenized from: " " + option, the mask literal scrubbed.
std::string option_text(std::string_view option, std::string_view mask);

}  // namespace laya::decide
