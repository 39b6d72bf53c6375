#include "graph/graph.h"
#include "util/overloaded.h"

namespace laya {

OpUses uses(const Op& op) {
  return std::visit(
      Overloaded{
          [](const ops::Embed& o) { return OpUses{{}, {o.out}}; },
          [](const ops::LayerNorm& o) { return OpUses{{o.x}, {o.out}}; },
          [](const ops::Gemm& o) {
            return o.epilogue == Epilogue::kAccumulate ? OpUses{{o.a, o.out}, {o.out}}
                                                       : OpUses{{o.a}, {o.out}};
          },
          [](const ops::Rope& o) { return OpUses{{o.qkv}, {o.qkv}}; },
          [](const ops::Attention& o) { return OpUses{{o.qkv}, {o.out}}; },
          [](const ops::GeGlu& o) { return OpUses{{o.x}, {o.out}}; },
          [](const ops::AddType& o) { return OpUses{{o.h}, {o.h}}; },
          [](const ops::GatherMarkers& o) { return OpUses{{o.h}, {o.out}}; },
          [](const ops::ActFeatures& o) { return OpUses{{o.h, o.logits}, {o.out}}; },
          [](const ops::MeanPool& o) { return OpUses{{o.h}, {o.out}}; },
      },
      op);
}

ValueId Graph::value(Rows rows, int64_t width) {
  values.push_back(Shape{rows, width});
  return ValueId{static_cast<uint32_t>(values.size() - 1)};
}

std::vector<ValueId> Graph::outputs() const {
  std::vector<ValueId> out;
  for (const auto& v : {logits, act, pooled}) {
    if (v) out.push_back(*v);
  }
  return out;
}

}  // namespace laya
