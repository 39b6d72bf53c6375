// libFuzzer harness: Tokenizer::load (tok/tokenizer.h) on small tokenizer.json documents and a
// tokenizer_config.json, split at the first NUL byte. A tokenizer that loads must encode a few
// fixed texts with ids inside its vocabulary.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "tok/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [tokenizer_json, config_json] = laya::fuzz::split_at_nul(std::string_view(reinterpret_cast<const char*>(data), size));
  auto loaded = laya::tok::Tokenizer::load(tokenizer_json, config_json);
  if (!loaded.ok()) {
    if (loaded.error().message.empty()) __builtin_trap();
    return 0;
  }
  const laya::tok::Tokenizer& tok = loaded.value();
  for (std::string_view text : {"", "hello world", "w1 w2 [MASK] w3", "caf\xc3\xa9 \xf0\x9f\x98\x80 \xff", "  a  "}) {
    for (int32_t id : tok.encode(text)) {
      if (id < 0 || static_cast<size_t>(id) >= tok.vocab_size()) __builtin_trap();
    }
    for (int32_t id : tok.encode_for_embedding(text, 8)) {
      if (id < 0 || static_cast<size_t>(id) >= tok.vocab_size()) __builtin_trap();
    }
  }
  return 0;
}
