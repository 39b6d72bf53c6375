// Upstream's predict_shortlist before the predict call (laya-spec §5.8): choice questions with more
// than k labels are cut to the k labels whose embedding is closest (cosine) to the query (the
// instructions and the state), and the reduced question lists the kept labels in rank order. The
// embeddings come from a callback so the ranking can be tested without a model.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

// One row of floats per text, in order (upstream's embed_fn).
using EmbedTexts = std::function<Result<std::vector<std::vector<float>>>(const std::vector<std::string>&)>;

// shortlist[qid] of the response.
struct ShortlistEntry {
  std::string qid;
  std::vector<std::string> labels;           // kept labels, most similar first (original order when passed through)
  std::optional<std::vector<double>> scores;  // their cosine to the query; none when passed through
  int64_t k = 0;
  int64_t n = 0;  // labels the question had
  bool passthrough() const { return !scores.has_value(); }
};

struct Shortlist {
  json::Value questions;  // the request's questions with every shortlisted choice reduced
  std::vector<ShortlistEntry> entries;  // one per choice question, in request order
};

// Calls `embed` once per choice question with more than k labels ([query, option texts...]).
// Errors are invalid_request with upstream's messages, prefixed "predictShortlist: "; an embed
// result of the wrong shape is internal.
Result<Shortlist> shortlist_questions(const json::Value& state, const json::Value& questions, int64_t k,
                                      const EmbedTexts& embed);

// {"qid": {"labels": [...], "scores": [...] | null, "k": k, "n": n, "passthrough": b}, ...} as
// json.dumps writes it.
std::string shortlist_json(const std::vector<ShortlistEntry>& entries);

}  // namespace laya::decide
