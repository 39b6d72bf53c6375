// A call's options (the JSON object predict / prepare / answer receive): the response `shape` and
// upstream's per-call keyword arguments. Keys this file does not name are ignored.
//
//   shape                "current" | "0.3.21" | "0.3.7"; absent or null: kDefaultShape
//   state_token_counts   upstream #687 (laya-spec-current §1.2, merge UNVERIFIED): absent or null
//                        gives the main line's usage keys; false the #687 default (no counts),
//                        true the #687 opt-in (counts after the flags). Read only by "current".
//   min_confidence       a number or a per-bucket map (laya-spec-current §4)
//   max_len, head_max_len  this call's budgets (laya-spec-current §5); absent or null: the checkpoint's
//   lang                 picks a lang_temperatures entry by its primary subtag (laya-spec-current §13, item 1)
//   lang_temperatures    {lang: {"temperature": [3], "temperature_by_options": {...}} | null}
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "decide/confidence.h"
#include "decide/request.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

// The shape a call without one gets.
inline constexpr std::string_view kDefaultShape = "current";

// laya-serve's LAYA_MAX_TOKEN_BUDGET default: the largest max_len / head_max_len a call may ask for
// (the library itself has no limit; the encoders' positions end at 8192 too).
inline constexpr int kMaxTokenBudget = 8192;

struct RequestOptions {
  Dialect dialect = Dialect::current();  // kDefaultShape
  TruncationUsage truncation_usage = TruncationUsage::kAlways;
  std::optional<MinConfidence> min_confidence;
  std::optional<int> max_len;
  std::optional<int> head_max_len;
  std::string lang;                 // empty: none
  json::Value lang_temperatures;    // null: none; resolved against the checkpoint by the caller

  RequestOptions() = default;
  // Only a shape: what the callers that take no options pass.
  RequestOptions(Dialect d) : dialect(d) {}  // NOLINT(google-explicit-constructor)
};

// "current", "0.3.21", "0.3.7"; anything else is invalid_request.
Result<Dialect> dialect_named(const json::Value& shape);

// The options object (null or absent keys take their defaults). `min_confidence` is checked first,
// as upstream checks it before anything else of the call.
Result<RequestOptions> parse_request_options(const json::Value& options);

// The same from JSON text; "" is no options.
Result<RequestOptions> parse_request_options(std::string_view options_json);

}  // namespace laya::decide
