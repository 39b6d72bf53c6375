// Added tokens (tokenizer.json "added_tokens") and their extraction from raw text with Hugging Face
// semantics (laya-spec §4.3): leftmost-longest matches, non-normalized tokens on the raw text
// first, then normalized tokens on each normalized gap; `single_word` rejects matches touching a
// word character (regex \w), `lstrip` / `rstrip` make a match swallow the white space beside it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tok/normalizer.h"

namespace laya::tok {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = true;
  bool special = false;
};

// A stretch of the input once added tokens are taken out: an added token, or normalized text for
// the pre-tokenizer and the model.
struct Segment {
  std::string text;       // normalized text; empty for a token
  int32_t id = -1;        // the added token's id, or -1 for text
  bool at_start = false;  // text beginning at offset 0 of the input (Metaspace "first")
};

class AddedVocabulary {
 public:
  AddedVocabulary() = default;
  // `tokens` must have distinct contents. Normalized tokens are matched by their normalized form.
  AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer& normalizer);

  // Hugging Face's extract_and_normalize: segments in order, empty text segments dropped. `text`
  // must be valid UTF-8.
  std::vector<Segment> extract_and_normalize(std::string_view text, const Normalizer& normalizer) const;

  const AddedToken* find(std::string_view content) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // A byte trie answering "the longest pattern starting here" (Aho-Corasick leftmost-longest
  // semantics, found by walking from each position: O(text * longest pattern)).
  class Trie {
   public:
    void insert(std::string_view pattern, int32_t token);
    // The token index and length of the longest pattern at `text[pos...]`, or {-1, 0}.
    std::pair<int32_t, size_t> longest_at(std::string_view text, size_t pos) const;
    bool empty() const { return nodes_.size() <= 1; }

   private:
    struct Node {
      std::vector<std::pair<uint8_t, int32_t>> next;  // byte -> node
      int32_t token = -1;
    };
    std::vector<Node> nodes_{Node{}};
    std::vector<int32_t> root_next_ = std::vector<int32_t>(256, -1);
  };

  struct Match {
    int32_t token;  // index into tokens_, or -1 for text
    size_t start, end;
  };
  // Hugging Face's find_matches: the splits of `text` by the trie's tokens.
  std::vector<Match> find_matches(std::string_view text, const Trie& trie) const;

  std::vector<AddedToken> tokens_;
  std::unordered_map<std::string, size_t> by_content_;
  Trie raw_;         // normalized == false: matched on the raw text
  Trie normalized_;  // normalized == true: matched on normalized text by their normalized form
};

}  // namespace laya::tok
