#include "session/wire.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace laya::wire {

namespace {

// Reads an array of integers that fit in int32, naming `where` in errors.
Result<std::vector<int32_t>> int_list(const json::Value* v, const std::string& where) {
  if (v == nullptr) return invalid_request(where + " is missing");
  if (!v->is_array()) return invalid_request(where + " must be an array of integers, got " + json::kind_name(v->kind()));
  std::vector<int32_t> out;
  out.reserve(v->items().size());
  for (size_t i = 0; i < v->items().size(); ++i) {
    const json::Value& item = v->items()[i];
    std::optional<int64_t> n = item.is_number() ? item.as_int64() : std::nullopt;
    if (!n || *n < INT32_MIN || *n > INT32_MAX) {
      return invalid_request(where + "[" + std::to_string(i) + "] must be an integer, got " +
                             (item.is_number() ? item.number_text() : json::kind_name(item.kind())));
    }
    out.push_back(static_cast<int32_t>(*n));
  }
  return out;
}

Result<Batch> batch_from(const json::Value* list, const char* name, bool decisions) {
  Batch batch;
  if (list == nullptr) return batch;
  if (!list->is_array()) return invalid_request(std::string(name) + " must be an array");
  for (size_t i = 0; i < list->items().size(); ++i) {
    const json::Value& item = list->items()[i];
    const std::string where = std::string(name) + "[" + std::to_string(i) + "]";
    if (!item.is_object()) return invalid_request(where + " must be an object");
    LAYA_ASSIGN_OR_RETURN(std::vector<int32_t> ids, int_list(item.find("ids"), where + ".ids"));
    std::vector<int32_t> markers;
    int32_t qtype = 0;
    if (decisions) {
      LAYA_ASSIGN_OR_RETURN(markers, int_list(item.find("markers"), where + ".markers"));
      const json::Value* q = item.find("qtype");
      std::optional<int64_t> n = q != nullptr && q->is_number() ? q->as_int64() : std::nullopt;
      if (!n || *n < 0 || *n > INT32_MAX) return invalid_request(where + ".qtype must be 0, 1 or 2");
      qtype = static_cast<int32_t>(*n);
    }
    batch.add(ids, markers, qtype);
  }
  return batch;
}

void append_floats(std::string& out, std::span<const float> values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    append_float(out, values[i]);
  }
  out += ']';
}

Result<std::vector<float>> float_list(const json::Value& v, const std::string& where) {
  if (!v.is_array()) return invalid_request(where + " must be an array of numbers");
  std::vector<float> out;
  for (size_t i = 0; i < v.items().size(); ++i) {
    const json::Value& item = v.items()[i];
    if (!item.is_number()) return invalid_request(where + "[" + std::to_string(i) + "] must be a number");
    out.push_back(static_cast<float>(item.as_double()));
  }
  return out;
}

}  // namespace

Result<ForwardInputs> forward_inputs(const json::Value& document) {
  if (!document.is_object()) return invalid_request("forward inputs must be a JSON object");
  ForwardInputs in;
  LAYA_ASSIGN_OR_RETURN(in.decisions, batch_from(document.find("inputs"), "inputs", true));
  LAYA_ASSIGN_OR_RETURN(in.embeddings, batch_from(document.find("embed_inputs"), "embed_inputs", false));
  return in;
}

void append_float(std::string& out, float value) {
  if (!std::isfinite(value)) {
    out += std::isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
    return;
  }
  char buffer[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value) break;
  }
  out += buffer;
}

std::string forward_outputs(const std::vector<DecisionOutput>& decisions,
                            const std::vector<std::vector<float>>& embeddings) {
  std::string out = "{\"expected\": [";
  for (size_t i = 0; i < decisions.size(); ++i) {
    out += i > 0 ? ", {\"logits\": " : "{\"logits\": ";
    append_floats(out, decisions[i].logits);
    out += ", \"act\": ";
    append_floats(out, decisions[i].act);
    out += '}';
  }
  out += "], \"embed_expected\": [";
  for (size_t i = 0; i < embeddings.size(); ++i) {
    out += i > 0 ? ", {\"pooled\": " : "{\"pooled\": ";
    append_floats(out, embeddings[i]);
    out += '}';
  }
  out += "]}";
  return out;
}

FlatForwardOutputs flatten_forward_outputs(const std::vector<DecisionOutput>& decisions,
                                           const std::vector<std::vector<float>>& embeddings) {
  FlatForwardOutputs out;
  std::string logits = "[";
  std::string act = "[";
  std::string pooled = "[";
  for (size_t i = 0; i < decisions.size(); ++i) {
    const DecisionOutput& d = decisions[i];
    out.floats.insert(out.floats.end(), d.logits.begin(), d.logits.end());
    out.floats.insert(out.floats.end(), d.act.begin(), d.act.end());
    logits += (i > 0 ? ", " : "") + std::to_string(d.logits.size());
    act += (i > 0 ? ", " : "") + std::to_string(d.act.size());
  }
  for (size_t i = 0; i < embeddings.size(); ++i) {
    out.floats.insert(out.floats.end(), embeddings[i].begin(), embeddings[i].end());
    pooled += (i > 0 ? ", " : "") + std::to_string(embeddings[i].size());
  }
  out.lengths = "{\"logits\": " + logits + "], \"act\": " + act + "], \"pooled\": " + pooled + "]}";
  return out;
}

std::string prepared_request(const decide::PreparedRequest& request) {
  std::string out = "{\"questions\": [";
  for (size_t i = 0; i < request.rows.size(); ++i) {
    const decide::Row& row = request.rows[i];
    if (i > 0) out += ", ";
    out += "{\"qid\": ";
    json::append_quoted(out, request.questions[i].id, false);
    for (auto [key, list] : {std::pair{"ids", &row.ids}, std::pair{"markers", &row.markers}}) {
      out += ", \"";
      out += key;
      out += "\": [";
      for (size_t k = 0; k < list->size(); ++k) {
        if (k > 0) out += ", ";
        out += std::to_string((*list)[k]);
      }
      out += ']';
    }
    out += ", \"qtype\": " + std::to_string(static_cast<int>(row.qtype)) + "}";
  }
  out += "], \"input_tokens\": " + std::to_string(request.input_tokens) + "}";
  return out;
}

Result<std::vector<decide::RowOutput>> row_outputs(const json::Value& document, size_t questions) {
  if (!document.is_object()) return invalid_request("outputs must be a JSON object with logits and act");
  const json::Value* logits = document.find("logits");
  const json::Value* act = document.find("act");
  if (logits == nullptr || !logits->is_array() || act == nullptr || !act->is_array()) {
    return invalid_request("outputs must have arrays \"logits\" and \"act\", one entry per question");
  }
  if (logits->items().size() != questions || act->items().size() != questions) {
    return invalid_request("outputs have " + std::to_string(logits->items().size()) + " logits and " +
                           std::to_string(act->items().size()) + " act entries for " +
                           std::to_string(questions) + " questions");
  }
  std::vector<decide::RowOutput> out(questions);
  for (size_t i = 0; i < questions; ++i) {
    LAYA_ASSIGN_OR_RETURN(out[i].logits, float_list(logits->items()[i], "logits[" + std::to_string(i) + "]"));
    LAYA_ASSIGN_OR_RETURN(out[i].act, float_list(act->items()[i], "act[" + std::to_string(i) + "]"));
  }
  return out;
}

std::string embeddings(std::span<const float> rows, size_t dim) {
  std::string out = "{\"embeddings\": [";
  for (size_t start = 0; dim > 0 && start < rows.size(); start += dim) {
    if (start > 0) out += ", ";
    append_floats(out, rows.subspan(start, dim));
  }
  out += "]}";
  return out;
}

Result<ShortlistOptions> shortlist_options(const json::Value& options) {
  if (!options.is_object()) return invalid_request("predictShortlist: options must be a JSON object");
  ShortlistOptions out;
  // A positive integer, or the default when absent or null; errors show the value as JS prints it.
  auto positive = [&](const char* key, int64_t max, int64_t& into) -> Status {
    const json::Value* v = options.find(key);
    if (v == nullptr || v->is_null()) return {};
    std::optional<int64_t> n = v->is_number() ? v->as_int64() : std::nullopt;
    if (n && *n >= 1 && *n <= max) {
      into = *n;
      return {};
    }
    const std::string shown = v->is_number() ? v->number_text() : v->is_string() ? v->as_string()
                              : v->is_bool() ? (v->as_bool() ? "true" : "false") : json::kind_name(v->kind());
    return invalid_request(std::string("predictShortlist: ") + key + " must be a positive integer, got " + shown);
  };
  int64_t max_length = static_cast<int64_t>(out.max_length);
  LAYA_RETURN_IF_ERROR(positive("k", INT64_MAX, out.k));
  LAYA_RETURN_IF_ERROR(positive("maxLength", 1'000'000'000, max_length));
  out.max_length = static_cast<size_t>(max_length);
  return out;
}

std::string config_summary(const LayaConfig& c) {
  std::string out = "{\"encoder\": ";
  json::append_quoted(out, c.encoder_name, false);
  if (c.model_name) {  // absent, not null, when the config has none (undefined in TypeScript)
    out += ", \"modelName\": ";
    json::append_quoted(out, *c.model_name, false);
  }
  // laya/config.h accepts no other encoder.
  out += ", \"modelType\": \"modernbert\"";
  for (auto [key, value] : {std::pair{"hiddenSize", c.encoder.hidden_size}, std::pair{"encoderLayers", c.encoder.num_layers},
                            std::pair{"attentionHeads", c.encoder.num_heads},
                            std::pair{"intermediateSize", c.encoder.intermediate_size},
                            std::pair{"vocabSize", c.encoder.vocab_size}, std::pair{"headLayers", c.head_layers},
                            std::pair{"maxLen", c.max_len}, std::pair{"headMaxLen", c.head_max_len},
                            std::pair{"actOutputs", c.act_outputs()}}) {
    out += ", \"";
    out += key;
    out += "\": " + std::to_string(value);
  }
  return out + "}";
}

Result<std::vector<std::string>> texts(const json::Value& document) {
  if (!document.is_array()) return invalid_request("texts must be a JSON array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < document.items().size(); ++i) {
    const json::Value& item = document.items()[i];
    // embed_fn_from_agent: None becomes "", anything else str(text); only strings and null here.
    if (item.is_null()) {
      out.emplace_back();
    } else if (item.is_string()) {
      out.push_back(item.as_string());
    } else {
      return invalid_request("texts[" + std::to_string(i) + "] must be a string, got " + json::kind_name(item.kind()));
    }
  }
  return out;
}

std::string memory_report(const MemoryReport& report, uint64_t wasm_memory_bytes) {
  return "{\"weightsBytes\": " + std::to_string(report.weights_bytes) +
         ", \"arenaBytes\": " + std::to_string(report.arena_bytes) +
         ", \"wasmMemoryBytes\": " + std::to_string(wasm_memory_bytes) + "}";
}

std::string error(const Error& e) {
  std::string out = "{\"error\": {\"code\": \"";
  out += error_code_name(e.code);
  out += "\", \"message\": ";
  json::append_quoted(out, e.message, false);
  out += "}}";
  return out;
}

}  // namespace laya::wire
