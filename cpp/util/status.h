// Errors as values: every call that can fail on bad input returns a Status or a Result<T>, never
// aborts or throws across the engine boundary. The codes are the ones the TypeScript errors carry.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace laya {

enum class ErrorCode {
  kInvalidCheckpoint,  // a file of the checkpoint is malformed or does not match its config, or its
                       // weights are not finite (found at bind, or as non-finite logits in predict)
  kUnsupportedModel,   // well formed, but a model or feature this engine does not run
  kInvalidRequest,     // a predict / embed / forward request is malformed
  kOutOfMemory,        // an allocation failed
  kInternal,           // a broken invariant: a bug in laya-wasm
  kAborted,            // the caller asked a run to stop (TypeScript rejects with an AbortError)
};

// The snake_case name TypeScript sees as `error.code`.
const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;  // starts with what failed and names the tensor, field or question
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  bool ok() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_{ErrorCode::kInternal, {}};
  bool ok_ = true;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T& value() & { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  const Error& error() const { assert(!ok()); return std::get<1>(state_); }
  Status status() const { return ok() ? Status() : Status(error()); }

 private:
  std::variant<T, Error> state_;
};

inline Error invalid_checkpoint(std::string message) {
  return {ErrorCode::kInvalidCheckpoint, std::move(message)};
}
inline Error unsupported_model(std::string message) {
  return {ErrorCode::kUnsupportedModel, std::move(message)};
}
inline Error invalid_request(std::string message) {
  return {ErrorCode::kInvalidRequest, std::move(message)};
}
inline Error out_of_memory(std::string message) { return {ErrorCode::kOutOfMemory, std::move(message)}; }
inline Error internal_error(std::string message) { return {ErrorCode::kInternal, std::move(message)}; }
inline Error aborted(std::string message) { return {ErrorCode::kAborted, std::move(message)}; }

}  // namespace laya

// Returns early with the error of a failed Status or Result expression.
#define LAYA_RETURN_IF_ERROR(expr)                       \
  do {                                                   \
    auto laya_status_ = (expr);                          \
    if (!laya_status_.ok()) return laya_status_.error(); \
  } while (0)

#define LAYA_CONCAT_INNER_(a, b) a##b
#define LAYA_CONCAT_(a, b) LAYA_CONCAT_INNER_(a, b)
// `LAYA_ASSIGN_OR_RETURN(auto x, make_x());` binds the value or returns the error.
#define LAYA_ASSIGN_OR_RETURN(decl, expr) \
  LAYA_ASSIGN_OR_RETURN_IMPL_(LAYA_CONCAT_(laya_result_, __LINE__), decl, expr)
#define LAYA_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.error();                 \
  decl = std::move(tmp).value()
