#include "laya/graphs.h"

#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "laya/test_fixtures.h"
#include "util/overloaded.h"

using laya::Graph;
using laya::LayerKind;

namespace {


// One line per op: its kind, inputs, weights (by tensor name), parameters and outputs; a value is
// written with its shape the first time it is written.
std::vector<std::string> render(const Graph& g, const laya::CheckpointLayout& layout) {
  std::vector<std::string> lines;
  std::vector<bool> written(g.values.size(), false);
  auto v = [](laya::ValueId id) { return "v" + std::to_string(id.index); };
  auto out = [&](laya::ValueId id) {
    std::string s = v(id);
    if (!written[id.index]) {
      written[id.index] = true;
      const auto& shape = g.shape(id);
      const char* rows = shape.rows == laya::Rows::kTokens ? "tokens" : shape.rows == laya::Rows::kSeqs ? "seqs" : "markers";
      s += "[" + std::string(rows) + "," + std::to_string(shape.width) + "]";
    }
    return s;
  };
  auto w = [&](laya::WeightId id, std::optional<laya::WeightId> b = std::nullopt) {
    std::string s = layout.tensors[id.index].name;
    if (b) s += "+" + layout.tensors[b->index].name;
    return s;
  };
  auto number = [](double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  };
  for (const laya::Op& op : g.ops) {
    lines.push_back(std::visit(
        laya::Overloaded{
            [&](const laya::ops::Embed& o) { return "Embed " + w(o.table) + " -> " + out(o.out); },
            [&](const laya::ops::LayerNorm& o) {
              return "LayerNorm " + v(o.x) + " " + w(o.w, o.b) + " eps=" + number(o.eps) + " -> " + out(o.out);
            },
            [&](const laya::ops::Gemm& o) {
              const char* epilogue = o.epilogue == laya::Epilogue::kNone         ? ""
                                     : o.epilogue == laya::Epilogue::kGelu       ? " gelu"
                                     : o.epilogue == laya::Epilogue::kRelu       ? " relu"
                                                                                 : " accumulate";
              return "Gemm " + v(o.a) + " " + w(o.w, o.b) + epilogue + " -> " + out(o.out);
            },
            [&](const laya::ops::Rope& o) { return "Rope " + v(o.qkv) + " theta=" + number(o.theta); },
            [&](const laya::ops::Attention& o) {
              return "Attention " + v(o.qkv) + " window=" + (o.window ? std::to_string(*o.window) : "all") +
                     " -> " + out(o.out);
            },
            [&](const laya::ops::GeGlu& o) { return "GeGlu " + v(o.x) + " -> " + out(o.out); },
            [&](const laya::ops::AddType& o) { return "AddType " + v(o.h) + " " + w(o.table); },
            [&](const laya::ops::GatherMarkers& o) { return "GatherMarkers " + v(o.h) + " -> " + out(o.out); },
            [&](const laya::ops::ActFeatures& o) {
              return "ActFeatures " + v(o.h) + " " + v(o.logits) + " -> " + out(o.out);
            },
            [&](const laya::ops::MeanPool& o) { return "MeanPool " + v(o.h) + " -> " + out(o.out); },
        },
        op));
  }
  return lines;
}

void check_lines(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  for (size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
    CAPTURE(i);
    CHECK((i < got.size() ? got[i] : "(none)") == (i < want.size() ? want[i] : "(none)"));
  }
}

// The tiny config cut to two encoder layers: global then sliding (every third layer is global).
laya::LayaConfig two_layer_config() { return laya::testing::tiny_config(R"(, "num_hidden_layers": 2)"); }

// The encoder part of both graphs, written out by hand from laya-spec §3.2-3.4: layer 0 has no
// attn_norm, the residual stream v1 is accumulated into by Wo and mlp.Wo, window ±4, RoPE bases
// 160000 (global) / 10000 (sliding), norm eps 1e-6 from the config.
const std::vector<std::string> kTwoLayerEncoder = {
    "Embed encoder.embeddings.tok_embeddings.weight -> v0[tokens,64]",
    "LayerNorm v0 encoder.embeddings.norm.weight eps=1e-06 -> v1[tokens,64]",
    "Gemm v1 encoder.layers.0.attn.Wqkv.weight -> v2[tokens,192]",
    "Rope v2 theta=160000",
    "Attention v2 window=all -> v3[tokens,64]",
    "Gemm v3 encoder.layers.0.attn.Wo.weight accumulate -> v1",
    "LayerNorm v1 encoder.layers.0.mlp_norm.weight eps=1e-06 -> v4[tokens,64]",
    "Gemm v4 encoder.layers.0.mlp.Wi.weight -> v5[tokens,64]",
    "GeGlu v5 -> v6[tokens,32]",
    "Gemm v6 encoder.layers.0.mlp.Wo.weight accumulate -> v1",
    "LayerNorm v1 encoder.layers.1.attn_norm.weight eps=1e-06 -> v7[tokens,64]",
    "Gemm v7 encoder.layers.1.attn.Wqkv.weight -> v8[tokens,192]",
    "Rope v8 theta=10000",
    "Attention v8 window=4 -> v9[tokens,64]",
    "Gemm v9 encoder.layers.1.attn.Wo.weight accumulate -> v1",
    "LayerNorm v1 encoder.layers.1.mlp_norm.weight eps=1e-06 -> v10[tokens,64]",
    "Gemm v10 encoder.layers.1.mlp.Wi.weight -> v11[tokens,64]",
    "GeGlu v11 -> v12[tokens,32]",
    "Gemm v12 encoder.layers.1.mlp.Wo.weight accumulate -> v1",
    "LayerNorm v1 encoder.final_norm.weight eps=1e-06 -> v13[tokens,64]",
};

}  // namespace

TEST_CASE("the decision graph is the spec's forward pass, op by op") {
  const auto config = two_layer_config();
  const auto layout = laya::checkpoint_layout(config);
  const Graph g = laya::build_decision_graph(config, layout.weights);
  std::vector<std::string> want = kTwoLayerEncoder;
  for (const char* line : {
           // Type embedding, then a norm-first TransformerEncoderLayer accumulating into v13 (laya-spec §3.5-3.6).
           "AddType v13 type_emb.weight",
           "LayerNorm v13 head.layers.0.norm1.weight+head.layers.0.norm1.bias eps=1e-05 -> v14[tokens,64]",
           "Gemm v14 head.layers.0.self_attn.in_proj_weight+head.layers.0.self_attn.in_proj_bias -> v15[tokens,192]",
           "Attention v15 window=all -> v16[tokens,64]",
           "Gemm v16 head.layers.0.self_attn.out_proj.weight+head.layers.0.self_attn.out_proj.bias accumulate -> v13",
           "LayerNorm v13 head.layers.0.norm2.weight+head.layers.0.norm2.bias eps=1e-05 -> v17[tokens,64]",
           "Gemm v17 head.layers.0.linear1.weight+head.layers.0.linear1.bias relu -> v18[tokens,256]",
           "Gemm v18 head.layers.0.linear2.weight+head.layers.0.linear2.bias accumulate -> v13",
           // Scorer at the markers (laya-spec §3.7).
           "GatherMarkers v13 -> v19[markers,64]",
           "LayerNorm v19 scorer.0.weight+scorer.0.bias eps=1e-05 -> v20[markers,64]",
           "Gemm v20 scorer.1.weight+scorer.1.bias gelu -> v21[markers,64]",
           "Gemm v21 scorer.3.weight+scorer.3.bias -> v22[markers,1]",
           // Act head on [CLS row | 4 features] (laya-spec §3.8), A = 3 act costs + 1.
           "ActFeatures v13 v22 -> v23[seqs,68]",
           "Gemm v23 act_head.0.weight+act_head.0.bias gelu -> v24[seqs,256]",
           "Gemm v24 act_head.2.weight+act_head.2.bias -> v25[seqs,4]",
       }) {
    want.push_back(line);
  }
  check_lines(render(g, layout), want);
  REQUIRE(g.logits.has_value());
  REQUIRE(g.act.has_value());
  CHECK(g.logits->index == 22);
  CHECK(g.act->index == 25);
  CHECK_FALSE(g.pooled.has_value());
}

TEST_CASE("the embedding graph is the encoder followed by a mean pool") {
  const auto config = two_layer_config();
  const auto layout = laya::checkpoint_layout(config);
  const Graph g = laya::build_embedding_graph(config, layout.weights);
  std::vector<std::string> want = kTwoLayerEncoder;
  want.push_back("MeanPool v13 -> v14[seqs,64]");
  check_lines(render(g, layout), want);
  REQUIRE(g.pooled.has_value());
  CHECK(g.pooled->index == 14);
  CHECK_FALSE(g.logits.has_value());
  CHECK_FALSE(g.act.has_value());
}

TEST_CASE("RoPE base and attention window follow each layer's kind, in both config layouts") {
  // From the fixtures' README: tiny-fanin is G S S G with window 16 (±8) in the transformers 4
  // layout, small-fanin G S S G S S with window 32 (±16) in the transformers 5 layout; both use
  // RoPE bases 160000 (global) / 10000 (sliding).
  struct Fixture {
    const char* set;
    const char* kinds;
    int64_t window;
  };
  for (const Fixture& f : {Fixture{"tiny-fanin", "GSSG", 8}, Fixture{"small-fanin", "GSSGSS", 16}}) {
    const std::string set = f.set;
    CAPTURE(set);
    const auto config = laya::testing::reference_config(f.set);
    const auto layout = laya::checkpoint_layout(config);
    for (const Graph& g : {laya::build_decision_graph(config, layout.weights),
                           laya::build_embedding_graph(config, layout.weights)}) {
      std::vector<double> thetas;
      std::vector<std::optional<int64_t>> windows;
      for (const laya::Op& op : g.ops) {
        if (const auto* rope = std::get_if<laya::ops::Rope>(&op)) thetas.push_back(rope->theta);
        if (const auto* attention = std::get_if<laya::ops::Attention>(&op)) windows.push_back(attention->window);
      }
      const std::string kinds = f.kinds;
      REQUIRE(thetas.size() == kinds.size());
      REQUIRE(windows.size() >= kinds.size());
      for (size_t i = 0; i < kinds.size(); ++i) {
        CAPTURE(i);
        CHECK(thetas[i] == (kinds[i] == 'G' ? 160000.0 : 10000.0));
        CHECK(windows[i] == (kinds[i] == 'G' ? std::nullopt : std::optional<int64_t>(f.window)));
      }
      // The decision head's attention layers see every key of the sequence.
      for (size_t i = kinds.size(); i < windows.size(); ++i) CHECK_FALSE(windows[i].has_value());
      CHECK(windows.size() == kinds.size() + (g.logits ? 2 : 0));
    }
  }
}

TEST_CASE("only layer 0 reads the residual stream without an attn_norm") {
  const auto config = laya::testing::reference_config("small-fanin");
  const auto layout = laya::checkpoint_layout(config);
  const Graph g = laya::build_decision_graph(config, layout.weights);
  // Walk the encoder: the input of each Wqkv GEMM is the residual stream itself only in layer 0.
  const laya::ValueId residual = std::get<laya::ops::LayerNorm>(g.ops[1]).out;
  int layer = 0;
  for (const laya::Op& op : g.ops) {
    const auto* gemm = std::get_if<laya::ops::Gemm>(&op);
    if (gemm == nullptr || layout.tensors[gemm->w.index].name.find("attn.Wqkv") == std::string::npos) continue;
    CAPTURE(layer);
    CHECK((gemm->a == residual) == (layer == 0));
    ++layer;
  }
  CHECK(layer == 6);
}

TEST_CASE("a v5 config's rope_parameters reach the graph (mmBERT's 160000 local base)") {
  const auto config = laya::testing::tiny_config(
      R"(, "local_rope_theta": 10000.0, "rope_parameters": {"sliding_attention": {"rope_theta": 160000.0}})");
  const auto layout = laya::checkpoint_layout(config);
  const Graph g = laya::build_decision_graph(config, layout.weights);
  int ropes = 0;
  for (const laya::Op& op : g.ops) {
    if (const auto* rope = std::get_if<laya::ops::Rope>(&op)) {
      CHECK(rope->theta == 160000.0);
      ++ropes;
    }
  }
  CHECK(ropes == 3);
}
