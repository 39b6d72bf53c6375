// The BPE model (tokenizer.json "model": {"type": "BPE"}) with Hugging Face semantics (laya-spec §4.3):
// a word starts as its characters' ids (a character missing from the vocabulary becomes its UTF-8
// bytes as <0xNN> tokens with byte_fallback, else the unk token, fused when fuse_unk, else it is
// dropped), then the lowest-ranked adjacent pair is merged, leftmost first, until none applies.
// Merging uses a heap over a linked list of symbols: O(n log n) per word, so hostile long words
// cannot make it quadratic. Repeated short words hit a small cache.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tok/vocab.h"

namespace laya::tok {

class Bpe {
 public:
  static Result<Bpe> parse(const json::Value& model, const FieldPath& at);

  void tokenize(std::string_view word, std::vector<int32_t>& ids) const;
  const Vocab& vocab() const { return vocab_; }

  Bpe(Bpe&&) noexcept;
  Bpe& operator=(Bpe&&) noexcept;
  ~Bpe();

 private:
  Bpe();
  struct MergeTarget {
    uint32_t rank;
    int32_t id;
  };
  static uint64_t pair_key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  // The word's initial symbols: one per character, or its bytes / unk as described above.
  void initial_symbols(std::string_view word, std::vector<int32_t>& ids) const;
  void merge(std::vector<int32_t>& ids) const;

  Vocab vocab_;
  std::unordered_map<uint64_t, MergeTarget> merges_;
  std::optional<int32_t> unk_id_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  int32_t byte_ids_[256];  // <0xNN> ids when byte_fallback, -1 when missing

  struct Cache;
  std::unique_ptr<Cache> cache_;
};

}  // namespace laya::tok
