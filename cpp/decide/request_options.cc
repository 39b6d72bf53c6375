#include "decide/request_options.h"

#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

// A budget: an integer (not a bool) in [1, kMaxTokenBudget]. Zero and negatives, which upstream's
// library would slice with, are refused too.
Result<std::optional<int>> budget(const json::Value& options, const char* key) {
  const json::Value* v = options.find(key);
  if (v == nullptr || v->is_null()) return std::optional<int>();
  const std::optional<int64_t> n = v->is_integer() ? v->as_int64() : std::nullopt;
  if (!n || *n < 1) {
    return invalid_request(std::string(key) + " must be a positive integer, got " + python_repr(*v));
  }
  if (*n > kMaxTokenBudget) {
    return invalid_request(std::string(key) + "=" + std::to_string(*n) + " exceeds server limit " +
                           std::to_string(kMaxTokenBudget));
  }
  return std::optional<int>(static_cast<int>(*n));
}

}  // namespace

Result<Dialect> dialect_named(const json::Value& shape) {
  if (shape.is_string()) {
    if (shape.as_string() == "current") return Dialect::current();
    if (shape.as_string() == "0.3.21") return Dialect::v0_3_21();
    if (shape.as_string() == "0.3.7") return Dialect::v0_3_7();
  }
  return invalid_request("options.shape must be \"current\", \"0.3.21\" or \"0.3.7\"");
}

Result<RequestOptions> parse_request_options(const json::Value& options) {
  RequestOptions out;
  if (!options.is_object()) return out;  // as before these options existed: nothing to read
  if (const json::Value* gate = options.find("min_confidence")) {
    LAYA_ASSIGN_OR_RETURN(out.min_confidence, check_min_confidence(*gate));
  }
  const json::Value* shape = options.find("shape");
  if (shape != nullptr && !shape->is_null()) {
    LAYA_ASSIGN_OR_RETURN(out.dialect, dialect_named(*shape));
  }
  if (const json::Value* counts = options.find("state_token_counts"); counts != nullptr && !counts->is_null()) {
    if (!counts->is_bool()) {
      return invalid_request("options.state_token_counts must be true or false, got " + python_repr(*counts));
    }
    out.truncation_usage = counts->as_bool() ? TruncationUsage::kFlagsThenCounts : TruncationUsage::kFlagsOnly;
  }
  LAYA_ASSIGN_OR_RETURN(out.max_len, budget(options, "max_len"));
  LAYA_ASSIGN_OR_RETURN(out.head_max_len, budget(options, "head_max_len"));
  if (const json::Value* lang = options.find("lang"); lang != nullptr && !lang->is_null()) {
    if (!lang->is_string()) {
      return invalid_request(std::string("lang must be a string, got ") + python_type_name(*lang));
    }
    out.lang = lang->as_string();
  }
  if (const json::Value* table = options.find("lang_temperatures")) out.lang_temperatures = *table;
  return out;
}

Result<RequestOptions> parse_request_options(std::string_view options_json) {
  if (options_json.empty()) return RequestOptions();
  LAYA_ASSIGN_OR_RETURN(json::Value options, json::parse(options_json, "options", {.allow_nonfinite = true}));
  return parse_request_options(options);
}

}  // namespace laya::decide
