// libFuzzer harness: parse_config (laya/config.h) on two documents split at the first NUL byte:
// rl_agent_config.json, then encoder/config.json. Checks that an accepted config keeps the
// invariants the graph builder relies on (laya-spec §1.2, §1.3).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "laya/checkpoint.h"
#include "laya/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [rl_agent, encoder] = laya::fuzz::split_at_nul(std::string_view(reinterpret_cast<const char*>(data), size));
  auto parsed = laya::parse_config(rl_agent, encoder);
  if (!parsed.ok()) {
    if (parsed.error().message.empty()) __builtin_trap();
    return 0;
  }
  const laya::LayaConfig& c = parsed.value();
  const laya::EncoderConfig& e = c.encoder;
  if (e.hidden_size <= 0 || e.num_heads <= 0 || e.hidden_size != e.num_heads * laya::kHeadDim) __builtin_trap();
  if (static_cast<int64_t>(e.layer_kinds.size()) != e.num_layers) __builtin_trap();
  if (c.head_max_len >= c.max_len) __builtin_trap();
  // The tensors such a config implies can be listed without overflow or crash.
  (void)laya::checkpoint_layout(c);
  return 0;
}
