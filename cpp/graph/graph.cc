// Building a graph (see graph.h); each op's descriptor is in ops.cc.
#include "graph/graph.h"

namespace laya {

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
