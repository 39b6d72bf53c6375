#include "util/status.h"

namespace laya {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidCheckpoint: return "invalid_checkpoint";
    case ErrorCode::kUnsupportedModel: return "unsupported_model";
    case ErrorCode::kInvalidRequest: return "invalid_request";
    case ErrorCode::kOutOfMemory: return "out_of_memory";
    case ErrorCode::kInternal: return "internal";
    case ErrorCode::kAborted: return "aborted";
  }
  return "internal";
}

}  // namespace laya
