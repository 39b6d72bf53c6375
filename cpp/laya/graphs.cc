// The residual stream is one value updated in place: each Wo / mlp.Wo GEMM accumulates into it
// (Epilogue::kAccumulate), so an encoder of any depth uses the same value. The embedding norm's
// output starts the encoder's stream; the final norm's output starts the head's.
#include "laya/graphs.h"

namespace laya {

namespace {

// Layer norm of the encoder: no bias, the config's eps (laya-spec §3.2-3.4).
ValueId encoder_norm(Graph& g, ValueId x, WeightId w, double eps) {
  ValueId out = g.value(g.shape(x).rows, g.shape(x).width);
  g.push(ops::LayerNorm{.x = x, .w = w, .b = std::nullopt, .eps = eps, .out = out});
  return out;
}

// Layer norm of the decision head and scorer: PyTorch's nn.LayerNorm, with bias, eps 1e-5.
ValueId head_norm(Graph& g, ValueId x, WeightId w, WeightId b) {
  ValueId out = g.value(g.shape(x).rows, g.shape(x).width);
  g.push(ops::LayerNorm{.x = x, .w = w, .b = b, .eps = 1e-5, .out = out});
  return out;
}

ValueId gemm(Graph& g, ValueId a, WeightId w, std::optional<WeightId> b, int64_t n, Epilogue epilogue) {
  ValueId out = g.value(g.shape(a).rows, n);
  g.push(ops::Gemm{.a = a, .w = w, .b = b, .epilogue = epilogue, .out = out});
  return out;
}

void gemm_accumulate(Graph& g, ValueId a, WeightId w, std::optional<WeightId> b, ValueId residual) {
  g.push(ops::Gemm{.a = a, .w = w, .b = b, .epilogue = Epilogue::kAccumulate, .out = residual});
}

// Embeddings, the encoder layers and the final norm (laya-spec §3.2-3.4); returns the final norm's
// output, the encoder's last_hidden_state.
ValueId add_encoder(Graph& g, const LayaConfig& config, const LayaWeights& w) {
  const EncoderConfig& e = config.encoder;
  const int64_t d = e.hidden_size;
  ValueId x = g.value(Rows::kTokens, d);
  g.push(ops::Embed{.table = w.tok_embeddings, .out = x});
  ValueId h = encoder_norm(g, x, w.embeddings_norm, e.norm_eps);
  for (size_t i = 0; i < w.encoder_layers.size(); ++i) {
    const EncoderLayerWeights& layer = w.encoder_layers[i];
    const LayerKind kind = e.layer_kinds[i];
    ValueId a = layer.attn_norm ? encoder_norm(g, h, *layer.attn_norm, e.norm_eps) : h;
    ValueId qkv = gemm(g, a, layer.wqkv, std::nullopt, 3 * d, Epilogue::kNone);
    g.push(ops::Rope{.qkv = qkv, .theta = e.rope_theta(kind)});
    ValueId attended = g.value(Rows::kTokens, d);
    g.push(ops::Attention{.qkv = qkv,
                          .window = kind == LayerKind::kSliding ? std::optional<int64_t>(e.window()) : std::nullopt,
                          .out = attended});
    gemm_accumulate(g, attended, layer.wo, std::nullopt, h);
    ValueId m = encoder_norm(g, h, layer.mlp_norm, e.norm_eps);
    ValueId u = gemm(g, m, layer.wi, std::nullopt, 2 * e.intermediate_size, Epilogue::kNone);
    ValueId gated = g.value(Rows::kTokens, e.intermediate_size);
    g.push(ops::GeGlu{.x = u, .out = gated});
    gemm_accumulate(g, gated, layer.mlp_wo, std::nullopt, h);
  }
  return encoder_norm(g, h, w.final_norm, e.norm_eps);
}

// A PyTorch TransformerEncoderLayer with norm_first, ReLU, FFN 4d, heads of 64 (laya-spec §3.6).
void add_head_layer(Graph& g, ValueId h, int64_t d, const HeadLayerWeights& layer) {
  ValueId a = head_norm(g, h, layer.norm1_w, layer.norm1_b);
  ValueId qkv = gemm(g, a, layer.in_proj_w, layer.in_proj_b, 3 * d, Epilogue::kNone);
  ValueId attended = g.value(Rows::kTokens, d);
  g.push(ops::Attention{.qkv = qkv, .window = std::nullopt, .out = attended});
  gemm_accumulate(g, attended, layer.out_proj_w, layer.out_proj_b, h);
  ValueId f = head_norm(g, h, layer.norm2_w, layer.norm2_b);
  ValueId u = gemm(g, f, layer.linear1_w, layer.linear1_b, 4 * d, Epilogue::kRelu);
  gemm_accumulate(g, u, layer.linear2_w, layer.linear2_b, h);
}

}  // namespace

Graph build_decision_graph(const LayaConfig& config, const LayaWeights& w) {
  const int64_t d = config.encoder.hidden_size;
  Graph g;
  ValueId h = add_encoder(g, config, w);
  g.push(ops::AddType{.h = h, .table = w.type_emb});
  for (const HeadLayerWeights& layer : w.head_layers) add_head_layer(g, h, d, layer);

  // Scorer at the markers (laya-spec §3.7): LayerNorm, Linear + GELU, Linear to one logit.
  ValueId z = g.value(Rows::kMarkers, d);
  g.push(ops::GatherMarkers{.h = h, .out = z});
  ValueId s = head_norm(g, z, w.scorer_norm_w, w.scorer_norm_b);
  ValueId u = gemm(g, s, w.scorer_hidden_w, w.scorer_hidden_b, d, Epilogue::kGelu);
  g.logits = gemm(g, u, w.scorer_out_w, w.scorer_out_b, 1, Epilogue::kNone);

  // Act head (laya-spec §3.8): [first row | 4 features of the uncalibrated option distribution].
  ValueId features = g.value(Rows::kSeqs, d + 4);
  g.push(ops::ActFeatures{.h = h, .logits = *g.logits, .out = features});
  ValueId hidden = gemm(g, features, w.act_hidden_w, w.act_hidden_b, kActHeadHidden, Epilogue::kGelu);
  g.act = gemm(g, hidden, w.act_out_w, w.act_out_b, config.act_outputs(), Epilogue::kNone);
  return g;
}

Graph build_embedding_graph(const LayaConfig& config, const LayaWeights& w) {
  Graph g;
  ValueId h = add_encoder(g, config, w);
  ValueId pooled = g.value(Rows::kSeqs, config.encoder.hidden_size);
  g.push(ops::MeanPool{.h = h, .out = pooled});
  g.pooled = pooled;
  return g;
}

}  // namespace laya
