// GEMM weights from rows into 8-row panels, as they stream in (see gemm_panels.h).
#include "engine/gemm_panels.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "kernels/panels.h"
#include "util/overloaded.h"

namespace laya {

std::vector<size_t> gemm_panel_weights(std::span<const Graph* const> graphs, const WeightTable& weights) {
  std::vector<bool> gemm(weights.size(), false), other(weights.size(), false);
  auto mark = [](std::vector<bool>& v, WeightId id) {
    if (id.index < v.size()) v[id.index] = true;
  };
  for (const Graph* g : graphs) {
    for (const Op& op : g->ops) {
      std::visit(Overloaded{
                     [&](const ops::Gemm& o) { mark(gemm, o.w); },
                     [&](const ops::Embed& o) { mark(other, o.table); },
                     [&](const ops::AddType& o) { mark(other, o.table); },
                     [](const auto&) {},
                 },
                 op);
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
    if (w.data < buffer.data() || w.data + bytes > buffer.data() + buffer.size()) {
      return internal_error("arranging GEMM panels: weight '" + w.name + "' lies outside the weights buffer");
    }
    a.planned_.push_back({i, static_cast<size_t>(w.data - buffer.data()), bytes, w.shape[0], w.shape[1], size});
    scratch = std::max(scratch, kernels::panel_scratch_bytes(w.shape[1], size));
  }
  std::sort(a.planned_.begin(), a.planned_.end(),
            [](const Planned& x, const Planned& y) { return x.begin < y.begin; });
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
  // Matrices are arranged in the order of their offsets; one that ends past `written` waits, and so
  // do the ones after it (the data arrives in order).
  while (next_ < planned_.size() && planned_[next_].begin + planned_[next_].bytes <= written) {
    const Planned& p = planned_[next_];
    kernels::arrange_panels_in_place(buffer_ + p.begin, p.rows, p.cols, p.element_size, scratch_.get());
    ++next_;
  }
}

void PanelArranger::finish(WeightTable& weights) {
  arrange_written(SIZE_MAX);
  for (const Planned& p : planned_) weights[p.index].layout = WeightLayout::kPanels8;
  scratch_.reset();
}

}  // namespace laya
