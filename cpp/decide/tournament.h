// Upstream's predict_tournament (laya-spec-current §8): a choice with more labels than one call
// should hold is answered in knockout rounds. Each round cuts every such choice into contiguous,
// near-equal groups of at most group_size labels and asks all groups in one call; the group
// winners go on to the next round, and a final call asks every question with the finalists. The
// predictor is a callback so the rounds can be tested without a model.
#pragma once

#include <functional>
#include <string>

#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

// One predict call: upstream's exact response JSON text for (state, questions). The call's other
// options (min_confidence, max_len, ...) are bound in by the caller.
using PredictFn = std::function<Result<std::string>(const json::Value& state, const json::Value& questions)>;

// The final call's response text, byte for byte, with
// `"tournament": {qid: {"labels": [finalists], "n": original count, "rounds": r}, ...}` appended
// after its last member, one entry per choice question in question order. `group_size` is the
// JSON value the caller gave (upstream's default is 16). Errors are invalid_request with
// upstream's messages; a predictor error is returned as it is.
Result<std::string> predict_tournament(const json::Value& state, const json::Value& questions,
                                       const json::Value& group_size, const PredictFn& predict);

}  // namespace laya::decide
