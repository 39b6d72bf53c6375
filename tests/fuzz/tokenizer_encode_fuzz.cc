// libFuzzer harness: the English (ModernBERT byte-level BPE) tokenizer, loaded once, on arbitrary
// bytes: encode and encode_for_embedding (first byte = max_length). Every id stays inside the
// vocabulary and the embedding ids fit max_length unless only the specials remain.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "tok/tokenizer.h"

namespace {

const laya::tok::Tokenizer& english() {
  static const laya::tok::Tokenizer tokenizer = [] {
    auto loaded = laya::tok::Tokenizer::load(laya::fuzz::read_fixture("upstream/english/tokenizer/tokenizer.json"),
                                             laya::fuzz::read_fixture("upstream/english/tokenizer/tokenizer_config.json"));
    if (!loaded.ok()) __builtin_trap();
    return std::move(loaded).value();
  }();
  return tokenizer;
}

void check_ids(const std::vector<int32_t>& ids, size_t vocab) {
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= vocab) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const laya::tok::Tokenizer& tok = english();
  if (size == 0) return 0;
  const size_t max_length = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  check_ids(tok.encode(text), tok.vocab_size());
  const auto embedding = tok.encode_for_embedding(text, max_length);
  check_ids(embedding, tok.vocab_size());
  // [CLS] ... [SEP]: never longer than max_length, except that the two specials always stay.
  if (embedding.size() > std::max<size_t>(max_length, 2)) __builtin_trap();
  return 0;
}
