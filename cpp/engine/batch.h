// A batch: sequences packed end to end with no padding (docs/architecture.md, laya-spec §3.9: each
// sequence runs unpadded, positions restart at 0). Markers are token indices within their own
// sequence; a sequence may have none (embedding batches).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/packing.h"
#include "plan/layout.h"
#include "util/status.h"

namespace laya {

struct Batch {
  std::vector<int32_t> ids;            // every token of every sequence
  std::vector<int32_t> seq_starts{0};  // seqs + 1 offsets into ids
  std::vector<int32_t> markers;        // token index within its sequence
  std::vector<int32_t> marker_starts{0};  // seqs + 1 offsets into markers
  std::vector<int32_t> qtypes;         // one per sequence

  // Appends one sequence.
  void add(std::span<const int32_t> seq_ids, std::span<const int32_t> seq_markers = {},
           int32_t qtype = 0);

  int64_t seqs() const { return static_cast<int64_t>(qtypes.size()); }
  RowCounts rows() const;

  // Checks every invariant: non-empty, starts that begin at 0, grow, and end at the data's size,
  // no empty sequence, ids in [0, vocab_size), markers inside their sequence, one qtype per
  // sequence in [0, n_types) (n_types == 0: the graph reads no qtype, any value passes). Messages
  // name the sequence and the value.
  Status validate(int64_t vocab_size, int64_t n_types) const;

  // The kernels' view; valid while the batch is unchanged.
  kernels::Packing packing() const;
};

}  // namespace laya
