// Arranging GEMM weights into panels at load (graph/weights.h WeightLayout::kPanels8): the SIMD GEMM
// then converts each block with one contiguous pass instead of gathering it from 8 rows on every
// call. It is done in place in the loader's one buffer, so the weights still exist once (the only
// extra memory is a copy of 8 rows, at most 84 KB for the published checkpoints), and while the
// weights stream in: each matrix is arranged as soon as its last byte is written, so the work
// overlaps a download instead of following it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "graph/graph.h"
#include "graph/weights.h"
#include "util/malloc_bytes.h"
#include "util/status.h"

namespace laya {

// The weights that every graph reads only as a GEMM matrix, with a row count divisible into
// panels: indices into `weights`. Lookup tables and the small heads with 1 or 2 outputs stay in rows.
std::vector<size_t> gemm_panel_weights(std::span<const Graph* const> graphs, const WeightTable& weights);

class PanelArranger {
 public:
  // Plans the arrangement of gemm_panel_weights(graphs, weights) inside `buffer`, the writable
  // memory their views point into (the data need not be written yet). A weight outside the buffer
  // is an internal error; out_of_memory if the 8-row copy cannot be allocated.
  static Result<PanelArranger> create(std::span<const Graph* const> graphs, const WeightTable& weights,
                                      std::span<std::byte> buffer);

  // Arranges every planned weight whose bytes lie wholly within the first `written` bytes of the
  // buffer and that is not arranged yet. Call it as the data arrives, in any steps.
  void arrange_written(size_t written);
  // Arranges the rest and marks the planned weights of `weights` (the table planned with, or one
  // bound the same way) as kPanels8.
  void finish(WeightTable& weights);
  size_t pending() const { return planned_.size() - next_; }

 private:
  struct Planned {
    size_t index;  // in the weight table
    size_t begin;  // bytes from the buffer's start
    size_t bytes;
    int64_t rows, cols;
    size_t element_size;
    size_t end = 0;          // past the last byte, scales included
    int64_t scale_cols = 0;  // q8 only: groups per row, and where the scales are
    size_t scale_begin = 0;
    size_t scale_bytes = 0;
  };
  PanelArranger() = default;

  std::byte* buffer_ = nullptr;
  std::vector<Planned> planned_;  // by end
  size_t next_ = 0;               // planned_[0, next_) are arranged
  MallocBytes scratch_;
};

}  // namespace laya
