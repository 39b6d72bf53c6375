// Added-token extraction, following Hugging Face's AddedVocabulary::find_matches step by step
// (including its quirks: a match skipped for single_word still consumes its bytes, and an rstrip
// extension is not seen by the search, so a later match may start inside it).
#include "tok/added_tokens.h"

#include <algorithm>

#include "tok/unicode_tables.h"
#include "tok/utf8.h"

namespace laya::tok {
namespace {

// The code point ending at byte `end` (valid UTF-8, end > 0).
char32_t last_char(std::string_view text, size_t end) {
  size_t start = end - 1;
  while (start > 0 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
  return decode_utf8(text, start);
}

// Byte offset where the run of white space ending at `end` begins (regex \s*$).
size_t white_space_start(std::string_view text, size_t end) {
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
    size_t pos = start;
    if (!is_white_space(decode_utf8(text, pos))) break;
    end = start;
  }
  return end;
}

// Byte offset where the run of white space starting at `start` ends (regex ^\s*).
size_t white_space_end(std::string_view text, size_t start) {
  while (start < text.size()) {
    size_t pos = start;
    if (!is_white_space(decode_utf8(text, pos))) break;
    start = pos;
  }
  return start;
}

}  // namespace

void AddedVocabulary::Trie::insert(std::string_view pattern, int32_t token) {
  int32_t node = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const auto byte = static_cast<uint8_t>(pattern[i]);
    int32_t next = -1;
    if (node == 0) {
      next = root_next_[byte];
    } else {
      for (const auto& [b, n] : nodes_[node].next) {
        if (b == byte) next = n;
      }
    }
    if (next < 0) {
      next = static_cast<int32_t>(nodes_.size());
      nodes_.emplace_back();
      if (node == 0) {
        root_next_[byte] = next;
      } else {
        nodes_[node].next.emplace_back(byte, next);
      }
    }
    node = next;
  }
  nodes_[node].token = token;
}

std::pair<int32_t, size_t> AddedVocabulary::Trie::longest_at(std::string_view text, size_t pos) const {
  std::pair<int32_t, size_t> best{-1, 0};
  int32_t node = root_next_[static_cast<uint8_t>(text[pos])];
  for (size_t i = pos + 1; node >= 0; ++i) {
    if (nodes_[node].token >= 0) best = {nodes_[node].token, i - pos};
    if (i == text.size()) break;
    const auto byte = static_cast<uint8_t>(text[i]);
    int32_t next = -1;
    for (const auto& [b, n] : nodes_[node].next) {
      if (b == byte) next = n;
    }
    node = next;
  }
  return best;
}

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer& normalizer)
    : tokens_(std::move(tokens)) {
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const AddedToken& t = tokens_[i];
    by_content_.emplace(t.content, i);
    if (t.content.empty()) continue;  // Hugging Face ignores empty tokens
    if (t.normalized) {
      const std::string pattern = normalizer.apply(t.content);
      if (!pattern.empty()) normalized_.insert(pattern, static_cast<int32_t>(i));
    } else {
      raw_.insert(t.content, static_cast<int32_t>(i));
    }
  }
}

const AddedToken* AddedVocabulary::find(std::string_view content) const {
  const auto it = by_content_.find(std::string(content));
  return it == by_content_.end() ? nullptr : &tokens_[it->second];
}

std::vector<AddedVocabulary::Match> AddedVocabulary::find_matches(std::string_view text, const Trie& trie) const {
  std::vector<Match> splits;
  size_t start_offset = 0;
  if (!trie.empty()) {
    for (size_t pos = 0; pos < text.size();) {
      const auto [token, length] = trie.longest_at(text, pos);
      if (token < 0) {
        ++pos;
        continue;
      }
      size_t start = pos, stop = pos + length;
      pos = stop;  // the search resumes after the match, whatever is done with it
      const AddedToken& t = tokens_[static_cast<size_t>(token)];
      if (t.single_word) {
        const bool word_before = start > 0 && is_word_char(last_char(text, start));
        size_t after = stop;
        const bool word_after = stop < text.size() && is_word_char(decode_utf8(text, after));
        if (word_before || word_after) continue;
      }
      if (t.lstrip) start = std::max(white_space_start(text, start), start_offset);
      if (t.rstrip) stop = white_space_end(text, stop);
      if (start_offset < start) splits.push_back({-1, start_offset, start});
      splits.push_back({token, start, stop});
      start_offset = stop;
    }
  }
  if (start_offset != text.size()) splits.push_back({-1, start_offset, text.size()});
  return splits;
}

std::vector<Segment> AddedVocabulary::extract_and_normalize(std::string_view text,
                                                            const Normalizer& normalizer) const {
  std::vector<Segment> out;
  for (const Match& outer : find_matches(text, raw_)) {
    if (outer.token >= 0) {
      out.push_back({{}, tokens_[static_cast<size_t>(outer.token)].id, false});
      continue;
    }
    const std::string normalized = normalizer.apply(text.substr(outer.start, outer.end - outer.start));
    for (const Match& inner : find_matches(normalized, normalized_)) {
      if (inner.token >= 0) {
        out.push_back({{}, tokens_[static_cast<size_t>(inner.token)].id, false});
      } else if (inner.end > inner.start) {
        out.push_back({normalized.substr(inner.start, inner.end - inner.start), -1,
                       outer.start == 0 && inner.start == 0});
      }
    }
  }
  return out;
}

}  // namespace laya::tok
