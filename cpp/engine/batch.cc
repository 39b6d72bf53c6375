// Batch construction and validation (see batch.h).
#include "engine/batch.h"

#include <limits>
#include <string>

namespace laya {

namespace {
Error bad(std::string message) { return invalid_request("invalid batch: " + std::move(message)); }
std::string seq_name(size_t s) { return "sequence " + std::to_string(s); }
}  // namespace

void Batch::add(std::span<const int32_t> seq_ids, std::span<const int32_t> seq_markers, int32_t qtype) {
  ids.insert(ids.end(), seq_ids.begin(), seq_ids.end());
  seq_starts.push_back(static_cast<int32_t>(ids.size()));
  markers.insert(markers.end(), seq_markers.begin(), seq_markers.end());
  marker_starts.push_back(static_cast<int32_t>(markers.size()));
  qtypes.push_back(qtype);
}

RowCounts Batch::rows() const {
  return {static_cast<int64_t>(ids.size()), seqs(), static_cast<int64_t>(markers.size())};
}

Status Batch::validate(int64_t vocab_size, int64_t n_types) const {
  const size_t n = qtypes.size();
  if (n == 0) return bad("it has no sequences");
  if (seq_starts.size() != n + 1) {
    return bad("seq_starts has " + std::to_string(seq_starts.size()) + " entries, expected " +
               std::to_string(n + 1) + " (one per sequence plus one)");
  }
  if (marker_starts.size() != n + 1) {
    return bad("marker_starts has " + std::to_string(marker_starts.size()) + " entries, expected " +
               std::to_string(n + 1) + " (one per sequence plus one)");
  }
  if (ids.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()) ||
      markers.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return bad("it has more than 2^31 tokens or markers");
  }
  if (seq_starts[0] != 0) return bad("seq_starts[0] is " + std::to_string(seq_starts[0]) + ", not 0");
  if (marker_starts[0] != 0) {
    return bad("marker_starts[0] is " + std::to_string(marker_starts[0]) + ", not 0");
  }
  if (static_cast<size_t>(seq_starts[n]) != ids.size()) {
    return bad("seq_starts ends at " + std::to_string(seq_starts[n]) + " but there are " +
               std::to_string(ids.size()) + " ids");
  }
  if (static_cast<size_t>(marker_starts[n]) != markers.size()) {
    return bad("marker_starts ends at " + std::to_string(marker_starts[n]) + " but there are " +
               std::to_string(markers.size()) + " markers");
  }
  // Offsets first, so that reading ids and markers below stays inside them.
  for (size_t s = 0; s < n; ++s) {
    if (seq_starts[s + 1] < seq_starts[s]) {
      return bad("seq_starts is not monotonic at " + seq_name(s) + " (" + std::to_string(seq_starts[s]) +
                 " then " + std::to_string(seq_starts[s + 1]) + ")");
    }
    if (seq_starts[s + 1] == seq_starts[s]) return bad(seq_name(s) + " is empty");
    if (marker_starts[s + 1] < marker_starts[s]) {
      return bad("marker_starts is not monotonic at " + seq_name(s) + " (" +
                 std::to_string(marker_starts[s]) + " then " + std::to_string(marker_starts[s + 1]) + ")");
    }
  }
  for (size_t s = 0; s < n; ++s) {
    const int32_t first = seq_starts[s];
    const int32_t end = seq_starts[s + 1];
    for (int32_t t = first; t < end; ++t) {
      if (ids[t] < 0 || ids[t] >= vocab_size) {
        return bad(seq_name(s) + " token " + std::to_string(t - first) + " has id " +
                   std::to_string(ids[t]) + ", outside the vocabulary [0, " + std::to_string(vocab_size) + ")");
      }
    }
    for (int32_t m = marker_starts[s]; m < marker_starts[s + 1]; ++m) {
      if (markers[m] < 0 || markers[m] >= end - first) {
        return bad(seq_name(s) + " marker " + std::to_string(m - marker_starts[s]) + " is at " +
                   std::to_string(markers[m]) + ", outside the sequence's " +
                   std::to_string(end - first) + " tokens");
      }
    }
    if (n_types > 0 && (qtypes[s] < 0 || qtypes[s] >= n_types)) {
      return bad(seq_name(s) + " has qtype " + std::to_string(qtypes[s]) + ", outside [0, " +
                 std::to_string(n_types) + ")");
    }
  }
  return {};
}

kernels::Packing Batch::packing() const {
  return {ids.data(), seq_starts.data(), marker_starts.data(), markers.data(), qtypes.data(), seqs()};
}

}  // namespace laya
