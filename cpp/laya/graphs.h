// The op graphs of a Laya model (laya-spec §3): the decision graph (encoder, type embedding, decision
// head, scorer, act head) and the embedding graph (encoder, mean pool). Built from the config and
// the weight ids of its checkpoint layout; nothing here touches weight bytes.
#pragma once

#include "graph/graph.h"
#include "laya/checkpoint.h"
#include "laya/config.h"

namespace laya {

// Outputs: `logits` (marker rows, one wide) and `act` (sequence rows, A wide).
Graph build_decision_graph(const LayaConfig& config, const LayaWeights& weights);

// Output: `pooled` (sequence rows, d wide), the mean of the final encoder rows (laya-spec §3.10).
Graph build_embedding_graph(const LayaConfig& config, const LayaWeights& weights);

}  // namespace laya
