"""An independent PyTorch fp32 reference of the Laya forward pass (spec section 3), for exporting
the benchmark's ONNX model (export_onnx.py) and checking it against the reference fixtures.
Reads our checkpoint directory (model.safetensors + rl_agent_config.json + encoder/config.json)
with its own small safetensors reader; one unpadded sequence at a time (laya-spec §3.9).
Run with Debian's /usr/bin/python3 (python3-torch 1.13, python3-numpy).

  /usr/bin/python3 tools/reference/laya_reference.py --check tests/data/fixtures/reference/tiny-fanin
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch
from torch import nn

_DTYPES = {"F16": np.float16, "BF16": None, "F32": np.float32}


def read_safetensors(path):
    """name -> float32 torch tensor (F16/F32 exactly widened; BF16 by shifting into the high half)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = data[begin:end]
        if info["dtype"] == "BF16":
            arr = (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(raw, dtype=_DTYPES[info["dtype"]]).astype(np.float32)
        out[name] = torch.from_numpy(arr.reshape(info["shape"]).copy())
    return out


class EncoderConfig:
    """laya-spec §1.3: both the transformers 4 and 5 layouts."""

    def __init__(self, cfg):
        self.d = cfg["hidden_size"]
        self.layers = cfg["num_hidden_layers"]
        self.heads = cfg["num_attention_heads"]
        self.inter = cfg["intermediate_size"]
        self.vocab = cfg["vocab_size"]
        self.eps = float(cfg.get("norm_eps", 1e-5))
        self.window = int(cfg.get("local_attention", 128))
        theta_g = float(cfg.get("global_rope_theta", 160000.0))
        theta_l = float(cfg.get("local_rope_theta", 10000.0))
        rope = cfg.get("rope_parameters")
        if isinstance(rope, dict):
            theta_g = float(rope.get("full_attention", {}).get("rope_theta", theta_g))
            theta_l = float(rope.get("sliding_attention", {}).get("rope_theta", theta_l))
        if "layer_types" in cfg:
            self.is_global = [t == "full_attention" for t in cfg["layer_types"]]
        else:
            n = int(cfg.get("global_attn_every_n_layers", 3))
            self.is_global = [i % n == 0 for i in range(self.layers)]
        self.theta_global, self.theta_local = theta_g, theta_l


def layer_norm(x, w, b, eps):
    return nn.functional.layer_norm(x, (int(x.shape[-1]),), w, b, eps)  # static d (ONNX export)


def gelu(x):
    return nn.functional.gelu(x)  # exact erf form (laya-spec §3.3)


class LayaReference(nn.Module):
    def __init__(self, checkpoint_dir):
        super().__init__()
        with open(os.path.join(checkpoint_dir, "rl_agent_config.json")) as f:
            agent = json.load(f)
        with open(os.path.join(checkpoint_dir, "encoder", "config.json")) as f:
            self.cfg = EncoderConfig(json.load(f))
        w = read_safetensors(os.path.join(checkpoint_dir, "model.safetensors"))
        c = self.cfg
        self.head_dim = c.d // c.heads
        self.params = nn.ParameterDict({k.replace(".", "__"): nn.Parameter(v, requires_grad=False)
                                        for k, v in w.items() if not k.startswith("head.")})
        nh = max(1, c.d // 64)
        self.head = nn.ModuleList()
        for j in range(int(agent["head_layers"])):
            layer = nn.TransformerEncoderLayer(c.d, nh, dim_feedforward=4 * c.d, dropout=0.0, activation="relu",
                                               batch_first=True, norm_first=True)
            prefix = f"head.layers.{j}."
            layer.load_state_dict({k[len(prefix):]: v for k, v in w.items() if k.startswith(prefix)}, strict=True)
            self.head.append(layer)
        for name, theta in (("inv_freq_global", c.theta_global), ("inv_freq_local", c.theta_local)):
            hd = self.head_dim
            inv = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
            self.register_buffer(name, inv, persistent=False)
        self.eval()

    def p(self, name):
        return self.params[name.replace(".", "__")]

    def rope(self, x, inv_freq, pos):
        freqs = pos[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def encode(self, ids):
        """ids: int64 [L] -> final_norm hidden states [L, d] (laya-spec §3.2-3.4)."""
        c = self.cfg
        L = ids.shape[0]
        h = layer_norm(self.p("encoder.embeddings.tok_embeddings.weight")[ids], self.p("encoder.embeddings.norm.weight"), None, c.eps)
        pos = torch.arange(L, dtype=torch.int64)
        posf = pos.float()
        dist = (pos[:, None] - pos[None, :]).abs()
        zero = torch.zeros((), dtype=torch.float32)
        sliding_mask = torch.where(dist <= c.window // 2, zero, torch.full((), float("-inf")))
        for i in range(c.layers):
            pre = f"encoder.layers.{i}."
            a = h if i == 0 else layer_norm(h, self.p(pre + "attn_norm.weight"), None, c.eps)
            qkv = a @ self.p(pre + "attn.Wqkv.weight").t()
            q, k, v = qkv.split(c.d, dim=-1)
            q = q.reshape(L, c.heads, self.head_dim).transpose(0, 1)
            k = k.reshape(L, c.heads, self.head_dim).transpose(0, 1)
            v = v.reshape(L, c.heads, self.head_dim).transpose(0, 1)
            inv = self.inv_freq_global if c.is_global[i] else self.inv_freq_local
            q, k = self.rope(q, inv, posf), self.rope(k, inv, posf)
            scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(self.head_dim))
            if not c.is_global[i]:
                scores = scores + sliding_mask
            o = torch.softmax(scores, dim=-1) @ v
            o = o.transpose(0, 1).reshape(L, c.d)
            h = h + o @ self.p(pre + "attn.Wo.weight").t()
            m = layer_norm(h, self.p(pre + "mlp_norm.weight"), None, c.eps)
            u = m @ self.p(pre + "mlp.Wi.weight").t()
            g = gelu(u[:, : c.inter]) * u[:, c.inter:]
            h = h + g @ self.p(pre + "mlp.Wo.weight").t()
        return layer_norm(h, self.p("encoder.final_norm.weight"), None, c.eps)

    def forward(self, ids, markers, qtype):
        """ids [1, L], markers [1, k], qtype [1] (int64) -> logits [1, k], act [1, A] (laya-spec §3.5-3.8)."""
        h = self.encode(ids[0])
        h = h + self.p("type_emb.weight")[qtype[0]]
        h = h[None]
        for layer in self.head:
            h = layer(h)
        h = h[0]
        z = h[markers[0]]
        s = layer_norm(z, self.p("scorer.0.weight"), self.p("scorer.0.bias"), 1e-5)
        u = gelu(s @ self.p("scorer.1.weight").t() + self.p("scorer.1.bias"))
        logits = (u @ self.p("scorer.3.weight").t() + self.p("scorer.3.bias"))[:, 0]
        # At least two slots (laya-spec §3.8): a -1e4 slot gets p = 0 exactly, so it changes nothing
        # but gives top2 = 0 for a one-option question.
        padded = torch.cat((logits, torch.full((1,), -1e4)))
        p = torch.softmax(padded, dim=0)
        k_eff = torch.clamp(torch.tensor(float(1)) * logits.shape[0], min=2.0)
        ent = -(p * torch.log(torch.clamp(p, min=1e-9))).sum() / torch.log(k_eff)
        top = torch.topk(p, 2).values
        features = torch.stack((top[0], top[0] - top[1], ent, k_eff / 255.0))
        x = torch.cat((h[0], features))
        act = gelu(x @ self.p("act_head.0.weight").t() + self.p("act_head.0.bias")) @ self.p("act_head.2.weight").t() + self.p("act_head.2.bias")
        return logits[None], act[None]

    def pooled(self, ids):
        """Encoder-only mean over every token (laya-spec §3.10)."""
        return self.encode(ids).mean(dim=0)


def run(model, ids, markers, qtype):
    with torch.no_grad():
        logits, act = model(torch.tensor([ids], dtype=torch.int64), torch.tensor([markers], dtype=torch.int64),
                            torch.tensor([qtype], dtype=torch.int64))
    return logits[0].tolist(), act[0].tolist()


def check_fixture(fixture_dir, tolerance=1e-4):
    """Every logit, act and pooled value within tolerance*max(1,|expected|) of fixture.json, same argmax."""
    model = LayaReference(os.path.join(fixture_dir, "checkpoint"))
    with open(os.path.join(fixture_dir, "fixture.json")) as f:
        fx = json.load(f)
    worst, failures, count = 0.0, 0, 0
    for inp, exp in zip(fx["inputs"], fx["expected"]):
        logits, act = run(model, inp["ids"], inp["markers"], inp["qtype"])
        for got, want in list(zip(logits, exp["logits"])) + list(zip(act, exp["act"])):
            err = abs(got - want) / max(1.0, abs(want))
            worst = max(worst, err)
            count += 1
            failures += err > tolerance
        if int(np.argmax(logits)) != int(np.argmax(exp["logits"])):
            failures += 1
            print(f"argmax differs on {inp['name']}", file=sys.stderr)
    for emb, exp in zip(fx.get("embed_inputs", []), fx.get("embed_expected", [])):
        ids = emb["ids"]
        with torch.no_grad():
            pooled = model.pooled(torch.tensor(ids, dtype=torch.int64)).tolist()
        for got, want in zip(pooled, exp["pooled"]):
            err = abs(got - want) / max(1.0, abs(want))
            worst = max(worst, err)
            count += 1
            failures += err > tolerance
    print(f"{fixture_dir}: {len(fx['inputs'])} inputs + {len(fx.get('embed_inputs', []))} embeds, {count} values, "
          f"worst relative error {worst:.3g} (tolerance {tolerance}), failures {failures}")
    return failures == 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", nargs="+", help="reference fixture directories (with checkpoint/ and fixture.json)")
    a = ap.parse_args()
    ok = all(check_fixture(d) for d in (a.check or []))
    sys.exit(0 if ok else 1)
