// The wasm module's JavaScript surface: one class, LayaSession, with coarse methods that take and
// return plain values. Structured results and errors cross as JSON text ({"error": {code, message}}
// on failure), so no C++ exception or abort reaches JavaScript; computed floats cross as a
// Float32Array view that the caller copies. The only file that includes
// <emscripten/bind.h>; web/src/core/ holds the hand-written TypeScript declaration of this surface.
#include <emscripten/bind.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "bind/abi_version.h"
#include "bind/module_threads.h"
#include "graph/q8.h"
#include "kernels/madd.h"
#include "laya/q8_checkpoint.h"
#include "plan/bucket.h"
#include "session/session.h"
#include "session/outside_wire.h"
#include "session/wire.h"

namespace laya {
namespace {

constexpr uint64_t kMaxFileSize = uint64_t{1} << 52;  // exactly representable as a JS number

// A whole number in [0, 2^52] (exactly representable): a size, count or index from JavaScript.
bool is_whole_number(double n) { return n >= 0 && n <= static_cast<double>(kMaxFileSize) && std::floor(n) == n; }

Result<uint64_t> file_size_from(double size) {
  if (!is_whole_number(size)) return invalid_request("fileSize must be a non-negative integer number of bytes");
  return static_cast<uint64_t>(size);
}

std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

Result<json::Value> parse_json(const std::string& text, const char* what) {
  json::ParseOptions options;
  options.allow_nonfinite = true;  // as Python's json reads requests
  return json::parse(text, what, options);
}

// The call's options: shape, min_confidence, max_len, head_max_len, lang, ... (decide/request_options.h).
Result<decide::RequestOptions> dialect_from(const std::string& options_json) {
  return decide::parse_request_options(options_json);
}

Result<json::Value> state_from(const std::string& state, bool state_is_json) {
  return decide::parse_state(state, state_is_json ? decide::StateForm::kJson : decide::StateForm::kText);
}

// decide's target: {"schema"?, "questions"?, "return_details"?, "min_confidence"?}.
Result<Session::DecideTarget> decide_target(const std::string& target_json) {
  LAYA_ASSIGN_OR_RETURN(json::Value target, json::parse(target_json, "decide target", {.allow_nonfinite = true}));
  Session::DecideTarget out;
  if (!target.is_object()) return invalid_request("decide: the target must be a JSON object");
  if (const json::Value* v = target.find("schema")) out.schema = *v;
  if (const json::Value* v = target.find("questions")) out.questions = *v;
  if (const json::Value* v = target.find("min_confidence")) out.min_confidence = *v;
  if (const json::Value* v = target.find("return_details")) out.return_details = v->is_bool() && v->as_bool();
  return out;
}

std::string ok_or_error(const Status& status) { return status.ok() ? std::string() : wire::error(status.error()); }

template <class T, class Fn>
std::string json_or_error(const Result<T>& result, Fn&& to_json) {
  return result.ok() ? to_json(result.value()) : wire::error(result.error());
}

// A number as JavaScript's String() shows it, for messages about a number argument.
std::string js_number_text(double n) {
  if (std::isnan(n)) return "NaN";
  if (std::isinf(n)) return n > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  // The shortest spelling that reads back as n, as JavaScript prints it.
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, n);
    if (std::strtod(buffer, nullptr) == n) break;
  }
  return buffer;
}

// A count or index from JavaScript; `what` names it in the error.
Result<size_t> whole_number(double n, const char* what) {
  if (!is_whole_number(n)) return invalid_request(std::string(what) + " must be a whole number");
  return static_cast<size_t>(n);
}

Result<GraphKind> graph_kind(const std::string& graph) {
  if (graph == "decision") return GraphKind::kDecision;
  if (graph == "embedding") return GraphKind::kEmbedding;
  return invalid_request("graph must be \"decision\" or \"embedding\", got \"" + graph + "\"");
}

class LayaSession {
 public:
  LayaSession() { session_.set_stop_check([this] { return abort_requested(); }); }
  LayaSession(const LayaSession&) = delete;  // the stop check holds `this`
  LayaSession& operator=(const LayaSession&) = delete;

  // The page's abort word for the calls that follow (web/src/worker/): a run stops before its next
  // step once flags[index] (an Int32Array over a SharedArrayBuffer the page writes) equals `id`.
  // null stops watching. Read with Atomics.load on this thread, so it works in either build.
  void set_abort_watch(emscripten::val flags, int index, int id) {
    abort_flags_ = flags;
    abort_index_ = index;
    abort_id_ = id;
  }

  std::string configure(std::string rl_agent, std::string encoder, std::string tokenizer, std::string tokenizer_config) {
    return ok_or_error(session_.configure(rl_agent, encoder, tokenizer, tokenizer_config));
  }

  std::string header_bytes_needed(std::string prefix, double file_size) {
    auto run = [&]() -> Result<uint64_t> {
      LAYA_ASSIGN_OR_RETURN(uint64_t size, file_size_from(file_size));
      return session_.header_bytes_needed(bytes_of(prefix), size);
    };
    return json_or_error(run(), [](uint64_t n) { return "{\"headerEnd\": " + std::to_string(n) + "}"; });
  }

  std::string plan_weights(std::string header_bytes, double file_size) {
    return plan_weights_as(header_bytes, file_size, WeightsMode::kAsStored);
  }
  // The same, quantizing a float checkpoint to q8 as it streams in (docs/q8-format.md): then the
  // plan also has "stagePointer" and "stageBytes", the window the data section passes through,
  // each window reported with weightsStaged. A q8 checkpoint plans as planWeights does.
  std::string plan_weights_q8(std::string header_bytes, double file_size) {
    return plan_weights_as(header_bytes, file_size, WeightsMode::kQ8);
  }
  // planWeightsQ8 with every GEMM on q8 weights computed in integers (kernels/int8_gemm.h): the
  // options' compute 'int8'. A q8 checkpoint plans as stored; a float one is quantized as it streams.
  std::string plan_weights_int8(std::string header_bytes, double file_size) {
    return plan_weights_as(header_bytes, file_size, WeightsMode::kQ8, kernels::Compute::kInt8);
  }
  std::string weights_staged(double bytes) {
    if (!(bytes >= 0.0 && bytes <= 4294967295.0) || std::floor(bytes) != bytes) {
      return wire::error(invalid_request("weightsStaged: bytes must be a count of bytes, got " + std::to_string(bytes)));
    }
    return ok_or_error(session_.weights_staged(static_cast<size_t>(bytes)));
  }

  // The first `bytes` of the data section are written (a double: sizes pass 2^31 in wasm).
  std::string weights_written(double bytes) {
    if (!(bytes >= 0.0 && bytes <= 18446744073709549568.0)) {
      return wire::error(invalid_request("weightsWritten: bytes must be a count of bytes, got " + std::to_string(bytes)));
    }
    return ok_or_error(session_.weights_written(static_cast<uint64_t>(bytes)));
  }
  std::string finish_weights() { return ok_or_error(session_.finish_weights()); }

  // The outside backend (session/outside_runs.h, web/src/webgpu/): instead of planWeights, the
  // header alone plans the model, whose weights live on the GPU; the result is the GpuModel.
  std::string plan_outside(std::string header_bytes, double file_size) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(uint64_t size, file_size_from(file_size));
      LAYA_RETURN_IF_ERROR(session_.plan_outside(bytes_of(header_bytes), size));
      const OutsideBackend& outside = *session_.outside();
      return wire::outside_model(outside.plan(), outside.header(), outside.limits(GraphKind::kDecision));
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }
  // A graph ("decision" or "embedding") planned for the bucket of these row counts: a GpuProgram.
  // Planned and written once per bucket; a batch of the same bucket gets the same text.
  std::string outside_program(std::string graph, double tokens, double seqs, double markers) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(GraphKind kind, graph_kind(graph));
      LAYA_ASSIGN_OR_RETURN(size_t t, whole_number(tokens, "outsideProgram: tokens"));
      LAYA_ASSIGN_OR_RETURN(size_t s, whole_number(seqs, "outsideProgram: seqs"));
      LAYA_ASSIGN_OR_RETURN(size_t m, whole_number(markers, "outsideProgram: markers"));
      const RowCounts bucket = bucket_for({static_cast<int64_t>(t), static_cast<int64_t>(s), static_cast<int64_t>(m)});
      for (const auto& [k, b, text] : programs_) {
        if (k == kind && b == bucket) return text;
      }
      LAYA_ASSIGN_OR_RETURN(OutsideBackend * outside, outside_backend("outsideProgram"));
      LAYA_ASSIGN_OR_RETURN(BucketPlan plan, outside->plan_bucket(kind, bucket));
      programs_.emplace_back(kind, bucket, wire::bucket_program(outside->graph(kind), graph.c_str(), plan));
      return std::get<2>(programs_.back());
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }
  // A 1-D weight's bytes as the outside backend received them, checked finite as binding does.
  std::string outside_check_vector(double index, std::string bytes) {
    auto run = [&]() -> Status {
      LAYA_ASSIGN_OR_RETURN(OutsideBackend * outside, outside_backend("outsideCheckVector"));
      LAYA_ASSIGN_OR_RETURN(size_t i, whole_number(index, "outsideCheckVector: index"));
      return outside->check_vector(i, bytes_of(bytes));
    };
    return ok_or_error(run());
  }
  // Replay (session/outside_runs.h): a request starts, a run of it starts, what the run waits for.
  std::string outside_begin_request() {
    Result<OutsideRuns*> runs = outside_runs("outsideBeginRequest");
    if (runs.ok()) runs.value()->begin_request();
    return ok_or_error(runs.status());
  }
  std::string outside_begin_replay() {
    Result<OutsideRuns*> runs = outside_runs("outsideBeginReplay");
    if (runs.ok()) runs.value()->begin_replay();
    return ok_or_error(runs.status());
  }
  std::string outside_pending() {
    return json_or_error(outside_runs("outsidePending"), [](OutsideRuns* r) { return wire::pending_batches(r->pending()); });
  }
  // A pending batch's outputs, a Float32Array as outside_runs.h orders them.
  std::string outside_supply(std::string graph, double index, emscripten::val outputs) {
    auto run = [&]() -> Status {
      LAYA_ASSIGN_OR_RETURN(OutsideRuns * runs, outside_runs("outsideSupply"));
      LAYA_ASSIGN_OR_RETURN(GraphKind kind, graph_kind(graph));
      LAYA_ASSIGN_OR_RETURN(size_t i, whole_number(index, "outsideSupply: index"));
      if (!outputs.instanceof(emscripten::val::global("Float32Array"))) {
        return invalid_request("outsideSupply: outputs must be a Float32Array");
      }
      const std::vector<float> floats = emscripten::convertJSArrayToNumberVector<float>(outputs);
      return runs->supply(kind, i, floats);
    };
    return ok_or_error(run());
  }

  std::string forward(std::string inputs_json) { return run_forward(inputs_json, false); }
  std::string forward_each_alone(std::string inputs_json) { return run_forward(inputs_json, true); }

  std::string predict(std::string state, bool state_is_json, std::string questions_json, std::string options_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      session_.set_thread_pool(module_pool());
      return session_.predict(st, questions, dialect);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  // predict_batch (laya-spec-current §6) for a JSON array of states (a string is a text state):
  // one response per state, in order, as JSON Lines (each response is one line: JSON text never
  // holds a raw newline).
  std::string predict_batch(std::string states_json, std::string questions_json, std::string options_json) {
    auto run = [&]() -> Result<std::vector<std::string>> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value states, json::parse(states_json, "states", {.allow_nonfinite = true}));
      if (!states.is_array()) return invalid_request("predictBatch: states must be a JSON array");
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      session_.set_thread_pool(module_pool());
      return session_.predict_batch(states.items(), questions, dialect);
    };
    return json_or_error(run(), [](const std::vector<std::string>& answers) {
      std::string lines;
      for (const std::string& answer : answers) lines += answer + '\n';
      return lines;
    });
  }

  // predict_long (laya-spec-current §7): predict's options plus "window" and "stride" (integers;
  // absent, null or <= 0: the defaults).
  std::string predict_long(std::string state, bool state_is_json, std::string questions_json, std::string options_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value options, parse_json(options_json, "options"));
      decide::LongStateOptions windows;
      for (auto [key, target] : {std::pair{"window", &windows.window}, std::pair{"stride", &windows.stride}}) {
        const json::Value* v = options.is_object() ? options.find(key) : nullptr;
        if (v == nullptr || v->is_null()) continue;
        const std::optional<int64_t> n = v->is_number() && v->is_integer() ? v->as_int64() : std::nullopt;
        if (!n) return invalid_request(std::string("predictLong: ") + key + " must be an integer");
        *target = *n;
      }
      if (const json::Value* v = options.is_object() ? options.find("aggregate") : nullptr; v != nullptr && !v->is_null()) {
        windows.aggregate = v->is_string() ? v->as_string() : "";
      }
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      session_.set_thread_pool(module_pool());
      return session_.predict_long(st, questions, dialect, windows);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  // predict_tournament (laya-spec-current §8): predict's options plus "group_size" (absent: 16).
  std::string predict_tournament(std::string state, bool state_is_json, std::string questions_json,
                                 std::string options_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value options, parse_json(options_json, "options"));
      const json::Value* given = options.is_object() ? options.find("group_size") : nullptr;
      const json::Value group_size = given != nullptr ? *given : json::Value::number("16");
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      session_.set_thread_pool(module_pool());
      return session_.predict_tournament(st, questions, dialect, group_size);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  // decide (laya-spec-current §10.4). target: {"schema"?, "questions"?, "return_details"?,
  // "min_confidence"?}; options: predict's, without a gate.
  std::string decide(std::string state, bool state_is_json, std::string target_json, std::string options_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(Session::DecideTarget target, decide_target(target_json));
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      session_.set_thread_pool(module_pool());
      return session_.decide(st, target, dialect);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  // decide_batch (laya-spec-current §10.5): `states` as JSON (a list of states; anything else is
  // refused with upstream's message).
  std::string decide_batch(std::string states_json, std::string target_json, std::string options_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(Session::DecideTarget target, decide_target(target_json));
      LAYA_ASSIGN_OR_RETURN(json::Value states, json::parse(states_json, "states", {.allow_nonfinite = true}));
      session_.set_thread_pool(module_pool());
      return session_.decide_batch(states, target, dialect);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  std::string prepare(std::string state, bool state_is_json, std::string questions_json, std::string options_json) {
    auto run = [&]() -> Result<decide::PreparedRequest> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      return session_.prepare(st, questions, dialect);
    };
    return json_or_error(run(), wire::prepared_request);
  }

  std::string answer(std::string state, bool state_is_json, std::string questions_json, std::string options_json,
                     std::string outputs_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest request, session_.prepare(st, questions, dialect));
      LAYA_ASSIGN_OR_RETURN(json::Value outputs, parse_json(outputs_json, "outputs"));
      LAYA_ASSIGN_OR_RETURN(std::vector<decide::RowOutput> rows, wire::row_outputs(outputs, request.rows.size()));
      return session_.answer(request, rows, dialect);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  std::string embed(std::string texts_json, double max_length) {
    auto run = [&]() -> Result<std::vector<std::vector<float>>> {
      if (!(max_length >= 1) || std::floor(max_length) != max_length || max_length > 1e9) {
        return invalid_request("embed: maxLength must be a positive integer, got " + js_number_text(max_length));
      }
      LAYA_ASSIGN_OR_RETURN(json::Value doc, json::parse(texts_json, "texts"));
      LAYA_ASSIGN_OR_RETURN(std::vector<std::string> texts, wire::texts(doc));
      session_.set_thread_pool(module_pool());
      return session_.embed(texts, static_cast<size_t>(max_length));
    };
    Result<std::vector<std::vector<float>>> rows = run();
    if (!rows.ok()) return wire::error(rows.error());
    // Kept end to end for embedded() / embeddedJson(); numbers never cross as text.
    embedded_dim_ = rows.value().empty() ? 0 : rows.value()[0].size();
    embedded_.clear();
    for (const std::vector<float>& row : rows.value()) embedded_.insert(embedded_.end(), row.begin(), row.end());
    return "{\"rows\": " + std::to_string(rows.value().size()) + ", \"dim\": " + std::to_string(embedded_dim_) + "}";
  }

  // The last embed's rows end to end, as a Float32Array over wasm memory: valid until the next
  // call into the module, so the caller copies it at once.
  emscripten::val embedded() const {
    return emscripten::val(emscripten::typed_memory_view(embedded_.size(), embedded_.data()));
  }
  // The last embed's rows as {"embeddings": [[...]]}, each float in the shortest text that reads
  // back as the same f32 (the CLI prints this).
  std::string embedded_json() const { return wire::embeddings(embedded_, embedded_dim_); }

  // The last forward's outputs end to end (see wire::flatten_forward_outputs): a view of wasm
  // memory, stale after the next call.
  emscripten::val forwarded() const {
    return emscripten::val(emscripten::typed_memory_view(forwarded_.size(), forwarded_.data()));
  }
  // The last forward's outputs in the fixture format, each float the shortest text that reads back.
  std::string forwarded_json() const { return forwarded_json_; }

  // predict_shortlist (laya-spec §5.8); options {"k", "maxLength", "shape"}.
  std::string predict_shortlist(std::string state, bool state_is_json, std::string questions_json,
                                std::string options_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(json::Value options, parse_json(options_json, "options"));
      LAYA_ASSIGN_OR_RETURN(wire::ShortlistOptions shortlist, wire::shortlist_options(options));
      LAYA_ASSIGN_OR_RETURN(decide::RequestOptions dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      session_.set_thread_pool(module_pool());
      return session_.predict_shortlist(st, questions, dialect, shortlist.k, shortlist.max_length);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  // The parsed configs (wire::config_summary); configure() first.
  std::string config_summary() const {
    if (!session_.configured()) return wire::error(invalid_request("configSummary: configure the session first"));
    return wire::config_summary(session_.config());
  }

  std::string memory_report() {
    const uint64_t wasm_bytes = static_cast<uint64_t>(__builtin_wasm_memory_size(0)) * 65536;
    return wire::memory_report(session_.memory(), wasm_bytes);
  }

  // Time by step kind (engine/step_profile.h); turning profiling on starts from zero.
  void set_profiling(bool on) { session_.set_profiling(on); }
  std::string profile() const { return session_.profile().to_json(); }

  // Load-time warnings for the console, as a JSON array of strings.
  std::string warnings() {
    std::string out = "[";
    if (!session_.calibration_warning().empty()) json::append_quoted(out, session_.calibration_warning(), false);
    return out + "]";
  }

 private:
  std::string run_forward(const std::string& inputs_json, bool each_alone) {
    struct Outputs {
      std::vector<DecisionOutput> decisions;
      std::vector<std::vector<float>> embeddings;
    };
    auto run = [&]() -> Result<Outputs> {
      session_.set_thread_pool(module_pool());  // the module's pool as it is now (setThreads may replace it)
      LAYA_ASSIGN_OR_RETURN(json::Value doc, json::parse(inputs_json, "inputs"));
      LAYA_ASSIGN_OR_RETURN(wire::ForwardInputs in, wire::forward_inputs(doc));
      Outputs out;
      if (in.decisions.seqs() > 0) {
        LAYA_ASSIGN_OR_RETURN(out.decisions, session_.forward_decisions(in.decisions, each_alone));
      }
      if (in.embeddings.seqs() > 0) {
        LAYA_ASSIGN_OR_RETURN(out.embeddings, session_.forward_embeddings(in.embeddings, each_alone));
      }
      return out;
    };
    // Kept for forwarded() / forwardedJson(), as embed keeps its rows: numbers never cross as text
    // unless text is asked for.
    return json_or_error(run(), [this](const Outputs& o) {
      forwarded_json_ = wire::forward_outputs(o.decisions, o.embeddings);
      wire::FlatForwardOutputs flat = wire::flatten_forward_outputs(o.decisions, o.embeddings);
      forwarded_ = std::move(flat.floats);
      return flat.lengths;
    });
  }

  std::string plan_weights_as(const std::string& header_bytes, double file_size, WeightsMode mode,
                              kernels::Compute compute = kernels::Compute::kF32) {
    auto run = [&]() -> Result<WeightPlan> {
      LAYA_ASSIGN_OR_RETURN(uint64_t size, file_size_from(file_size));
      return session_.plan_weights(bytes_of(header_bytes), size, mode, compute);
    };
    return json_or_error(run(), [](const WeightPlan& p) {
      std::string out = "{\"pointer\": " + std::to_string(reinterpret_cast<uintptr_t>(p.pointer)) +
                        ", \"dataOffset\": " + std::to_string(p.data_offset) +
                        ", \"dataLength\": " + std::to_string(p.data_length);
      if (p.stage != nullptr) {
        out += ", \"stagePointer\": " + std::to_string(reinterpret_cast<uintptr_t>(p.stage)) +
               ", \"stageBytes\": " + std::to_string(p.stage_bytes);
      }
      return out + "}";
    });
  }

  bool abort_requested() const {
    if (abort_flags_.isNull() || abort_flags_.isUndefined()) return false;
    return emscripten::val::global("Atomics").call<int>("load", abort_flags_, abort_index_) == abort_id_;
  }

  // The outside backend, or the error `what` gives before planOutside.
  Result<OutsideBackend*> outside_backend(const char* what) {
    if (session_.outside() == nullptr) return invalid_request(std::string(what) + ": call planOutside first");
    return session_.outside();
  }
  Result<OutsideRuns*> outside_runs(const char* what) {
    LAYA_ASSIGN_OR_RETURN(OutsideBackend * outside, outside_backend(what));
    return &outside->runs();
  }

  Session session_;
  std::vector<std::tuple<GraphKind, RowCounts, std::string>> programs_;  // outsideProgram's, per bucket
  emscripten::val abort_flags_ = emscripten::val::null();
  int abort_index_ = 0;
  int abort_id_ = 0;
  std::vector<float> embedded_;  // the last embed's rows, end to end
  size_t embedded_dim_ = 0;
  std::vector<float> forwarded_;  // the last forward's outputs, end to end
  std::string forwarded_json_;    // the same in the fixture format
};

// The converter's half of `laya-wasm quantize` (docs/q8-format.md): the q8 file's plan from the
// source header, then each matrix quantized with the same rounding the loader uses.
class LayaQuantizer {
 public:
  // The source's first headerEnd bytes -> {"header": the q8 header's JSON text (padded),
  // "dataLength", "tensors": [{name, dtype, shape, quantized, source: [b, e], values: [b, e],
  // scales?: [b, e]}]} in data order; offsets are within each file's data section.
  std::string plan(std::string header_bytes, double file_size) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(uint64_t size, file_size_from(file_size));
      std::array<std::byte, 8> prefix{};
      if (header_bytes.size() < 8) return invalid_checkpoint("model.safetensors: shorter than its 8-byte header length");
      std::memcpy(prefix.data(), header_bytes.data(), 8);
      LAYA_ASSIGN_OR_RETURN(uint64_t n, safetensors::read_header_length(prefix, size));
      if (header_bytes.size() < 8 + n) return invalid_checkpoint("model.safetensors: the header is cut short");
      LAYA_ASSIGN_OR_RETURN(safetensors::Header source,
                            safetensors::parse_header(std::string_view(header_bytes).substr(8, n), size));
      LAYA_ASSIGN_OR_RETURN(Q8Plan plan, plan_q8(source));
      auto range = [](uint64_t b, uint64_t e) { return "[" + std::to_string(b) + ", " + std::to_string(e) + "]"; };
      std::string out = "{\"header\": ";
      json::append_quoted(out, plan.header_json, false);
      out += ", \"dataLength\": " + std::to_string(plan.header.data_length) + ", \"tensors\": [";
      for (size_t i = 0; i < plan.tensors.size(); ++i) {
        const Q8Tensor& q = plan.tensors[i];
        const safetensors::TensorEntry& src = source.tensors[q.source];
        const safetensors::TensorEntry& values = plan.header.tensors[q.values];
        if (i > 0) out += ", ";
        out += "{\"name\": ";
        json::append_quoted(out, src.name, false);
        out += std::string(", \"dtype\": \"") + dtype_name(src.dtype) + "\", \"shape\": [";
        for (size_t d = 0; d < src.shape.size(); ++d) out += (d ? ", " : "") + std::to_string(src.shape[d]);
        out += std::string("], \"quantized\": ") + (q.quantized ? "true" : "false") +
               ", \"source\": " + range(src.begin, src.end) + ", \"values\": " + range(values.begin, values.end);
        if (q.quantized) {
          const safetensors::TensorEntry& scales = plan.header.tensors[q.scales];
          out += ", \"scales\": " + range(scales.begin, scales.end);
        }
        out += "}";
      }
      return out + "]}";
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  // One matrix of `dtype` ("F32", "F16", "BF16"), rows x cols, little-endian: its q8 values then
  // scales are kept for output(). "" or an error naming `name`.
  std::string quantize(std::string name, std::string dtype_text, double rows_d, double cols_d, std::string bytes) {
    auto run = [&]() -> Status {
      const DType dtype = dtype_text == "F32" ? DType::kF32 : dtype_text == "F16" ? DType::kF16 : DType::kBF16;
      if (dtype_text != "F32" && dtype_text != "F16" && dtype_text != "BF16") {
        return invalid_request("quantize: " + name + " is " + dtype_text + "; q8 quantizes F32, F16 and BF16");
      }
      const auto rows = static_cast<int64_t>(rows_d), cols = static_cast<int64_t>(cols_d);
      if (rows < 1 || cols < 1 || static_cast<double>(rows) != rows_d || static_cast<double>(cols) != cols_d ||
          static_cast<uint64_t>(rows * cols) * dtype_size(dtype) != bytes.size()) {
        return invalid_request("quantize: " + name + ": " + std::to_string(bytes.size()) + " bytes are not a [" +
                               std::to_string(rows_d) + ", " + std::to_string(cols_d) + "] " + dtype_text + " matrix");
      }
      const size_t values = static_cast<size_t>(rows * cols);
      const size_t scales = static_cast<size_t>(rows * q8_groups(cols));
      output_.assign(values + scales * sizeof(float), std::byte{0});
      std::vector<float> scale_values(scales), row(static_cast<size_t>(cols));
      const int64_t bad = quantize_rows_q8(dtype, reinterpret_cast<const std::byte*>(bytes.data()), rows, cols,
                                           reinterpret_cast<int8_t*>(output_.data()), scale_values.data(), row.data());
      if (bad >= 0) {
        output_.clear();
        return invalid_checkpoint("model.safetensors: " + name + " holds a value that is not finite (row " +
                                  std::to_string(bad / cols) + ", column " + std::to_string(bad % cols) +
                                  "); a matrix with NaN or Inf cannot be quantized to q8");
      }
      std::memcpy(output_.data() + values, scale_values.data(), scales * sizeof(float));
      return {};
    };
    return ok_or_error(run());
  }
  // The last quantize's bytes (values, then scales): a view of wasm memory; copy or write it at once.
  emscripten::val output() const {
    return emscripten::val(emscripten::typed_memory_view(output_.size(), reinterpret_cast<const uint8_t*>(output_.data())));
  }
  void release() { std::vector<std::byte>().swap(output_); }

 private:
  std::vector<std::byte> output_;
};

}  // namespace
}  // namespace laya

EMSCRIPTEN_BINDINGS(laya_core) {
  using laya::LayaSession;
  // The surface's version (bind/abi_version.h): load() refuses a module of another version.
  emscripten::function("abiVersion", +[]() { return laya::kAbiVersion; });
  // Module-wide threads (bind/module_threads.h): "" or an error; the count now; the most possible.
  emscripten::function("setThreads", +[](int threads) { return laya::ok_or_error(laya::set_module_threads(threads)); });
  emscripten::function("threads", +[]() { return laya::module_pool() == nullptr ? 1 : laya::module_pool()->size(); });
  emscripten::function("availableThreads", &laya::available_threads);
  emscripten::function("shutDownThreads", &laya::shut_down_module_threads);
  // Which build this is: "relaxed" (kernels/madd.h's relaxed_madd) or "plain" SIMD.
  emscripten::function("simd", +[]() { return std::string(laya::kernels::relaxed_madd_compiled() ? "relaxed" : "plain"); });
  emscripten::class_<LayaSession>("LayaSession")
      .constructor<>()
      .function("configure", &LayaSession::configure)
      .function("headerBytesNeeded", &LayaSession::header_bytes_needed)
      .function("planWeights", &LayaSession::plan_weights)
      .function("finishWeights", &LayaSession::finish_weights)
      .function("planOutside", &LayaSession::plan_outside)
      .function("outsideProgram", &LayaSession::outside_program)
      .function("outsideCheckVector", &LayaSession::outside_check_vector)
      .function("outsideBeginRequest", &LayaSession::outside_begin_request)
      .function("outsideBeginReplay", &LayaSession::outside_begin_replay)
      .function("outsidePending", &LayaSession::outside_pending)
      .function("outsideSupply", &LayaSession::outside_supply)
      .function("forward", &LayaSession::forward)
      .function("forwardEachAlone", &LayaSession::forward_each_alone)
      .function("predict", &LayaSession::predict)
      .function("prepare", &LayaSession::prepare)
      .function("answer", &LayaSession::answer)
      .function("embed", &LayaSession::embed)
      .function("embedded", &LayaSession::embedded)
      .function("embeddedJson", &LayaSession::embedded_json)
      .function("forwarded", &LayaSession::forwarded)
      .function("forwardedJson", &LayaSession::forwarded_json)
      .function("predictShortlist", &LayaSession::predict_shortlist)
      .function("predictBatch", &LayaSession::predict_batch)
      .function("predictLong", &LayaSession::predict_long)
      .function("predictTournament", &LayaSession::predict_tournament)
      .function("decide", &LayaSession::decide)
      .function("decideBatch", &LayaSession::decide_batch)
      .function("configSummary", &LayaSession::config_summary)
      .function("weightsWritten", &LayaSession::weights_written)
      .function("planWeightsQ8", &LayaSession::plan_weights_q8)
      .function("planWeightsInt8", &LayaSession::plan_weights_int8)
      .function("weightsStaged", &LayaSession::weights_staged)
      .function("memoryReport", &LayaSession::memory_report)
      .function("setProfiling", &LayaSession::set_profiling)
      .function("profile", &LayaSession::profile)
      .function("warnings", &LayaSession::warnings)
      .function("setAbortWatch", &LayaSession::set_abort_watch);
  emscripten::class_<laya::LayaQuantizer>("LayaQuantizer")
      .constructor<>()
      .function("plan", &laya::LayaQuantizer::plan)
      .function("quantize", &laya::LayaQuantizer::quantize)
      .function("output", &laya::LayaQuantizer::output)
      .function("release", &laya::LayaQuantizer::release);
}
