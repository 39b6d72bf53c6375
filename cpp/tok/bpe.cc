// BPE as in Hugging Face tokenizers' Word::merge_all: a min-heap of (rank, position) candidates;
// a popped candidate is stale (skipped) when its left symbol is gone or the pair now at its
// position would not produce the same token.
#include "tok/bpe.h"

#include <mutex>
#include <queue>

#include "tok/utf8.h"

namespace laya::tok {

namespace {
constexpr size_t kCacheMaxWordBytes = 64;
constexpr size_t kCacheMaxEntries = 16384;
}  // namespace

struct Bpe::Cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<int32_t>> words;
};

Bpe::Bpe() : cache_(std::make_unique<Cache>()) {
  for (int32_t& id : byte_ids_) id = -1;
}
Bpe::Bpe(Bpe&&) noexcept = default;
Bpe& Bpe::operator=(Bpe&&) noexcept = default;
Bpe::~Bpe() = default;

Result<Bpe> Bpe::parse(const json::Value& model, const FieldPath& at) {
  Bpe b;
  const json::Value* vocab = model.find("vocab");
  if (!vocab) return at.invalid("vocab", "is missing");
  LAYA_ASSIGN_OR_RETURN(b.vocab_, Vocab::parse(*vocab, at.child("vocab")));

  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    LAYA_ASSIGN_OR_RETURN(const std::optional<std::string> affix, read_optional_string(model, key, at));
    if (affix && !affix->empty()) return at.unsupported(key, "is not supported (only null)");
  }
  if (const json::Value* dropout = model.find("dropout"); dropout && !dropout->is_null()) {
    if (!dropout->is_number() || dropout->as_double() != 0.0) {
      return at.unsupported("dropout", "is not supported (BPE dropout is random; only null or 0)");
    }
  }
  LAYA_ASSIGN_OR_RETURN(b.fuse_unk_, read_bool(model, "fuse_unk", false, at));
  LAYA_ASSIGN_OR_RETURN(b.byte_fallback_, read_bool(model, "byte_fallback", false, at));
  LAYA_ASSIGN_OR_RETURN(b.ignore_merges_, read_bool(model, "ignore_merges", false, at));
  LAYA_ASSIGN_OR_RETURN(const std::optional<std::string> unk, read_optional_string(model, "unk_token", at));
  if (unk) {
    b.unk_id_ = b.vocab_.find(*unk);
    if (!b.unk_id_) return at.invalid("unk_token", "'" + *unk + "' is not in the vocabulary");
  }
  if (b.byte_fallback_) {
    static const char kHex[] = "0123456789ABCDEF";
    for (int byte = 0; byte < 256; ++byte) {
      const std::string name = std::string("<0x") + kHex[byte >> 4] + kHex[byte & 15] + ">";
      b.byte_ids_[byte] = b.vocab_.find(name).value_or(-1);
    }
  }

  const json::Value* merges = model.find("merges");
  if (!merges || !merges->is_array()) return at.invalid("merges", "must be an array");
  const FieldPath merges_at = at.child("merges");
  b.merges_.reserve(merges->items().size());
  // Hugging Face reads either all "a b" strings or all [a, b] pairs, never a mix.
  const bool strings = !merges->items().empty() && merges->items()[0].is_string();
  for (size_t rank = 0; rank < merges->items().size(); ++rank) {
    const json::Value& m = merges->items()[rank];
    std::string_view left, right;
    if (m.is_string() != strings) {
      return merges_at.invalid("[" + std::to_string(rank) + "]", "mixes \"a b\" strings with [\"a\", \"b\"] pairs");
    }
    if (m.is_string()) {
      // "a b": exactly one space (Hugging Face rejects any other count).
      const std::string& s = m.as_string();
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        return merges_at.invalid("[" + std::to_string(rank) + "]", "must be two tokens separated by one space");
      }
      left = std::string_view(s).substr(0, space);
      right = std::string_view(s).substr(space + 1);
    } else if (m.is_array() && m.items().size() == 2 && m.items()[0].is_string() && m.items()[1].is_string()) {
      left = m.items()[0].as_string();
      right = m.items()[1].as_string();
    } else {
      return merges_at.invalid("[" + std::to_string(rank) + "]", "must be \"a b\" or [\"a\", \"b\"]");
    }
    const std::optional<int32_t> a = b.vocab_.find(left), c = b.vocab_.find(right);
    const std::string joined = std::string(left) + std::string(right);
    const std::optional<int32_t> merged = b.vocab_.find(joined);
    if (!a || !c || !merged) {
      const std::string_view missing = !a ? left : !c ? right : std::string_view(joined);
      return merges_at.invalid("[" + std::to_string(rank) + "]", "uses '" + std::string(missing) +
                                                                     "', which is not in the vocabulary");
    }
    // A repeated pair keeps its last rank, as Hugging Face's map collection does.
    b.merges_.insert_or_assign(pair_key(*a, *c), MergeTarget{static_cast<uint32_t>(rank), *merged});
  }
  return b;
}

void Bpe::initial_symbols(std::string_view word, std::vector<int32_t>& ids) const {
  int32_t pending_unk = -1;  // an unk not yet emitted (so that fuse_unk can extend it)
  for (size_t pos = 0; pos < word.size();) {
    const size_t start = pos;
    decode_utf8(word, pos);
    const std::string_view ch = word.substr(start, pos - start);
    if (const std::optional<int32_t> id = vocab_.find(ch)) {
      if (pending_unk >= 0) ids.push_back(pending_unk), pending_unk = -1;
      ids.push_back(*id);
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (char c : ch) all = all && byte_ids_[static_cast<uint8_t>(c)] >= 0;
      if (all) {
        // Hugging Face emits the bytes without flushing a pending unk first.
        for (char c : ch) ids.push_back(byte_ids_[static_cast<uint8_t>(c)]);
        continue;
      }
    }
    if (unk_id_) {
      if (pending_unk >= 0 && !fuse_unk_) ids.push_back(pending_unk);
      pending_unk = *unk_id_;
    }
  }
  if (pending_unk >= 0) ids.push_back(pending_unk);
}

void Bpe::merge(std::vector<int32_t>& ids) const {
  struct Candidate {
    uint32_t rank;
    uint32_t pos;
    int32_t id;
    bool operator<(const Candidate& o) const {  // the heap's top: lowest rank, then lowest position
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  const size_t n = ids.size();
  std::vector<int32_t> prev(n), next(n);
  std::vector<bool> alive(n, true);
  std::priority_queue<Candidate> heap;
  const auto candidate = [&](size_t pos, size_t right) {
    const auto it = merges_.find(pair_key(ids[pos], ids[right]));
    if (it != merges_.end()) heap.push({it->second.rank, static_cast<uint32_t>(pos), it->second.id});
  };
  for (size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<int32_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
  }
  for (size_t i = 0; i + 1 < n; ++i) candidate(i, i + 1);
  while (!heap.empty()) {
    const Candidate top = heap.top();
    heap.pop();
    if (!alive[top.pos] || next[top.pos] < 0) continue;
    const auto right = static_cast<size_t>(next[top.pos]);
    const auto it = merges_.find(pair_key(ids[top.pos], ids[right]));
    if (it == merges_.end() || it->second.id != top.id) continue;  // stale
    ids[top.pos] = top.id;
    alive[right] = false;
    next[top.pos] = next[right];
    if (next[right] >= 0) prev[static_cast<size_t>(next[right])] = static_cast<int32_t>(top.pos);
    if (prev[top.pos] >= 0) candidate(static_cast<size_t>(prev[top.pos]), top.pos);
    if (next[top.pos] >= 0) candidate(top.pos, static_cast<size_t>(next[top.pos]));
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (alive[i]) ids[kept++] = ids[i];
  }
  ids.resize(kept);
}

void Bpe::tokenize(std::string_view word, std::vector<int32_t>& ids) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    if (const std::optional<int32_t> id = vocab_.find(word)) {
      ids.push_back(*id);
      return;
    }
  }
  const bool cacheable = word.size() <= kCacheMaxWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    if (const auto it = cache_->words.find(std::string(word)); it != cache_->words.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> symbols;
  initial_symbols(word, symbols);
  merge(symbols);
  ids.insert(ids.end(), symbols.begin(), symbols.end());
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    if (cache_->words.size() >= kCacheMaxEntries) cache_->words.clear();
    cache_->words.emplace(std::string(word), std::move(symbols));
  }
}

}  // namespace laya::tok
