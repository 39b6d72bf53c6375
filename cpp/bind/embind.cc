// The wasm module's JavaScript surface: one class, LayaSession, with coarse methods that take and
// return plain values. Structured results and errors cross as JSON text ({"error": {code, message}}
// on failure), so no C++ exception or abort reaches JavaScript. The only file that includes
// <emscripten/bind.h>; web/src/core/ holds the hand-written TypeScript declaration of this surface.
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "bind/module_threads.h"
#include "session/session.h"
#include "session/wire.h"

namespace laya {
namespace {

constexpr uint64_t kMaxFileSize = uint64_t{1} << 52;  // exactly representable as a JS number

Result<uint64_t> file_size_from(double size) {
  if (!(size >= 0) || size > static_cast<double>(kMaxFileSize) || std::floor(size) != size) {
    return invalid_request("fileSize must be a non-negative integer number of bytes");
  }
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

Result<decide::Dialect> dialect_from(const std::string& options_json) {
  if (options_json.empty()) return decide::Dialect::current();
  LAYA_ASSIGN_OR_RETURN(json::Value options, json::parse(options_json, "options"));
  const json::Value* shape = options.find("shape");
  if (shape == nullptr || shape->is_null()) return decide::Dialect::current();
  if (shape->is_string() && shape->as_string() == "current") return decide::Dialect::current();
  if (shape->is_string() && shape->as_string() == "0.3.7") return decide::Dialect::v0_3_7();
  return invalid_request("options.shape must be \"current\" or \"0.3.7\"");
}

Result<json::Value> state_from(const std::string& state, bool state_is_json) {
  return decide::parse_state(state, state_is_json ? decide::StateForm::kJson : decide::StateForm::kText);
}

std::string ok_or_error(const Status& status) { return status.ok() ? std::string() : wire::error(status.error()); }

template <class T, class Fn>
std::string json_or_error(const Result<T>& result, Fn&& to_json) {
  return result.ok() ? to_json(result.value()) : wire::error(result.error());
}

class LayaSession {
 public:
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
    auto run = [&]() -> Result<WeightPlan> {
      LAYA_ASSIGN_OR_RETURN(uint64_t size, file_size_from(file_size));
      return session_.plan_weights(bytes_of(header_bytes), size);
    };
    return json_or_error(run(), [](const WeightPlan& p) {
      return "{\"pointer\": " + std::to_string(reinterpret_cast<uintptr_t>(p.pointer)) +
             ", \"dataOffset\": " + std::to_string(p.data_offset) +
             ", \"dataLength\": " + std::to_string(p.data_length) + "}";
    });
  }

  // The first `bytes` of the data section are written (a double: sizes pass 2^31 in wasm).
  std::string weights_written(double bytes) {
    if (!(bytes >= 0.0 && bytes <= 18446744073709549568.0)) {
      return wire::error(invalid_request("weightsWritten: bytes must be a count of bytes, got " + std::to_string(bytes)));
    }
    return ok_or_error(session_.weights_written(static_cast<uint64_t>(bytes)));
  }
  std::string finish_weights() { return ok_or_error(session_.finish_weights()); }

  std::string forward(std::string inputs_json) { return run_forward(inputs_json, false); }
  std::string forward_each_alone(std::string inputs_json) { return run_forward(inputs_json, true); }

  std::string predict(std::string state, bool state_is_json, std::string questions_json, std::string options_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::Dialect dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      session_.set_thread_pool(module_pool());
      return session_.predict(st, questions, dialect);
    };
    return json_or_error(run(), [](const std::string& s) { return s; });
  }

  std::string prepare(std::string state, bool state_is_json, std::string questions_json, std::string options_json) {
    auto run = [&]() -> Result<decide::PreparedRequest> {
      LAYA_ASSIGN_OR_RETURN(decide::Dialect dialect, dialect_from(options_json));
      LAYA_ASSIGN_OR_RETURN(json::Value st, state_from(state, state_is_json));
      LAYA_ASSIGN_OR_RETURN(json::Value questions, parse_json(questions_json, "questions"));
      return session_.prepare(st, questions, dialect);
    };
    return json_or_error(run(), wire::prepared_request);
  }

  std::string answer(std::string state, bool state_is_json, std::string questions_json, std::string options_json,
                     std::string outputs_json) {
    auto run = [&]() -> Result<std::string> {
      LAYA_ASSIGN_OR_RETURN(decide::Dialect dialect, dialect_from(options_json));
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
        return invalid_request("maxLength must be a positive integer");
      }
      LAYA_ASSIGN_OR_RETURN(json::Value doc, json::parse(texts_json, "texts"));
      LAYA_ASSIGN_OR_RETURN(std::vector<std::string> texts, wire::texts(doc));
      session_.set_thread_pool(module_pool());
      return session_.embed(texts, static_cast<size_t>(max_length));
    };
    return json_or_error(run(), wire::embeddings);
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
    return json_or_error(run(), [](const Outputs& o) { return wire::forward_outputs(o.decisions, o.embeddings); });
  }

  Session session_;
};

}  // namespace
}  // namespace laya

EMSCRIPTEN_BINDINGS(laya_core) {
  using laya::LayaSession;
  // Module-wide threads (bind/module_threads.h): "" or an error; the count now; the most possible.
  emscripten::function("setThreads", +[](int threads) { return laya::ok_or_error(laya::set_module_threads(threads)); });
  emscripten::function("threads", +[]() { return laya::module_pool() == nullptr ? 1 : laya::module_pool()->size(); });
  emscripten::function("availableThreads", &laya::available_threads);
  emscripten::function("shutDownThreads", &laya::shut_down_module_threads);
  emscripten::class_<LayaSession>("LayaSession")
      .constructor<>()
      .function("configure", &LayaSession::configure)
      .function("headerBytesNeeded", &LayaSession::header_bytes_needed)
      .function("planWeights", &LayaSession::plan_weights)
      .function("finishWeights", &LayaSession::finish_weights)
      .function("forward", &LayaSession::forward)
      .function("forwardEachAlone", &LayaSession::forward_each_alone)
      .function("predict", &LayaSession::predict)
      .function("prepare", &LayaSession::prepare)
      .function("answer", &LayaSession::answer)
      .function("embed", &LayaSession::embed)
      .function("weightsWritten", &LayaSession::weights_written)
      .function("memoryReport", &LayaSession::memory_report)
      .function("setProfiling", &LayaSession::set_profiling)
      .function("profile", &LayaSession::profile)
      .function("warnings", &LayaSession::warnings);
}
