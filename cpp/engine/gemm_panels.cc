// GEMM weights from rows into 8-row panels, as they stream in (see gemm_panels.h).
#include "engine/gemm_panels.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "kernels/panels.h"

namespace laya {

std::vector<size_t> gemm_panel_weights(std::span<const Graph* const> graphs, const WeightTable& weights) {
  std::vector<bool> gemm(weights.size(), false), other(weights.size(), false);
  auto mark = [](std::vector<bool>& v, WeightId id) {
    if (id.index < v.size()) v[id.index] = true;
  };
  // A GEMM's matrix may become panels; a lookup table read by any op must stay in rows.
  for (const Graph* g : graphs) {
    for (const Op& op : g->ops) {
      const OpWeights used = weights_of(op);
      for (WeightId id : used.matrices) mark(gemm, id);
      for (WeightId id : used.tables) mark(other, id);
    }
  }
  std::vector<size_t> chosen;
  for (size_t i = 0; i < weights.size(); ++i) {
    const WeightView& w = weights[i];
    if (!gemm[i] || other[i] || w.layout != WeightLayout::kRows) continue;
    if (w.shape.size() != 2 || w.shape[0] == 0 || w.shape[0] % kPanelRows != 0) continue;
    chosen.push_back(i);
  }
  return chosen;
}

Result<PanelArranger> PanelArranger::create(std::span<const Graph* const> graphs, const WeightTable& weights,
                                            std::span<std::byte> buffer) {
  PanelArranger a;
  a.buffer_ = buffer.data();
  size_t scratch = 0;
  for (size_t i : gemm_panel_weights(graphs, weights)) {
    const WeightView& w = weights[i];
    const size_t size = dtype_size(w.dtype);
    const size_t bytes = static_cast<size_t>(w.elements()) * size;
    auto inside = [&](const std::byte* p, size_t n) { return p >= buffer.data() && p + n <= buffer.data() + buffer.size(); };
    if (!inside(w.data, bytes)) {
      return internal_error("arranging GEMM panels: weight '" + w.name + "' lies outside the weights buffer");
    }
    Planned p{i, static_cast<size_t>(w.data - buffer.data()), bytes, w.shape[0], w.shape[1], size};
    p.end = p.begin + p.bytes;
    scratch = std::max(scratch, kernels::panel_scratch_bytes(w.shape[1], size));
    if (w.dtype == DType::kI8) {
      // A q8 matrix's scales are arranged in the same panels, one column per group.
      p.scale_cols = q8_groups(w.shape[1]);
      p.scale_bytes = static_cast<size_t>(w.shape[0] * p.scale_cols) * sizeof(float);
      if (w.scales == nullptr || !inside(w.scales, p.scale_bytes)) {
        return internal_error("arranging GEMM panels: the scales of '" + w.name + "' lie outside the weights buffer");
      }
      p.scale_begin = static_cast<size_t>(w.scales - buffer.data());
      p.end = std::max(p.end, p.scale_begin + p.scale_bytes);
      scratch = std::max(scratch, kernels::panel_scratch_bytes(p.scale_cols, sizeof(float)));
    }
    a.planned_.push_back(p);
  }
  std::sort(a.planned_.begin(), a.planned_.end(), [](const Planned& x, const Planned& y) { return x.end < y.end; });
  if (scratch > 0) {
    a.scratch_.reset(static_cast<std::byte*>(std::malloc(scratch)));
    if (!a.scratch_) {
      return out_of_memory("arranging GEMM weights into panels needs a copy of 8 rows, " + std::to_string(scratch) +
                           " bytes, and that allocation failed");
    }
  }
  return a;
}

void PanelArranger::arrange_written(size_t written) {
  // Matrices are arranged in the order of where their bytes (a q8 matrix's scales included) end;
  // one that ends past `written` waits, and so do the ones after it (the data arrives in order).
  while (next_ < planned_.size() && planned_[next_].end <= written) {
    const Planned& p = planned_[next_];
    kernels::arrange_panels_in_place(buffer_ + p.begin, p.rows, p.cols, p.element_size, scratch_.get());
    if (p.scale_cols > 0) {
      kernels::arrange_panels_in_place(buffer_ + p.scale_begin, p.rows, p.scale_cols, sizeof(float), scratch_.get());
    }
    ++next_;
  }
}

void PanelArranger::finish(WeightTable& weights) {
  arrange_written(SIZE_MAX);
  for (const Planned& p : planned_) weights[p.index].layout = WeightLayout::kPanels8;
  scratch_.reset();
}

}  // namespace laya
