"""Exports the reference model (laya_reference.py) of a checkpoint directory to an f32 ONNX model
for the onnxruntime-web comparison in bench/speed-bench.mjs: inputs ids [1, L], markers [1, k],
qtype [1] (int64; L and k dynamic), outputs logits [1, k], act [1, A]; opset 17.
Reused when the .onnx is newer than model.safetensors.

  /usr/bin/python3 tools/reference/export_onnx.py <checkpoint dir> <out.onnx>
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from laya_reference import LayaReference  # noqa: E402


def export(checkpoint_dir, out):
    weights = os.path.join(checkpoint_dir, "model.safetensors")
    if os.path.exists(out) and os.path.getmtime(out) > os.path.getmtime(weights):
        print(f"reused {out}")
        return
    t0 = time.time()
    model = LayaReference(checkpoint_dir)
    L, k = 16, 3
    ids = torch.randint(0, model.cfg.vocab, (1, L), dtype=torch.int64)
    markers = torch.tensor([[1, 5, 9]], dtype=torch.int64)[:, :k]
    qtype = torch.tensor([0], dtype=torch.int64)
    # Grad stays enabled so nn.TransformerEncoderLayer takes its ordinary (exportable) path, not
    # the fused inference fast path.
    torch.onnx.export(model, (ids, markers, qtype), out + ".tmp", opset_version=17,
                      input_names=["ids", "markers", "qtype"], output_names=["logits", "act"],
                      dynamic_axes={"ids": {1: "L"}, "markers": {1: "k"}, "logits": {1: "k"}},
                      do_constant_folding=True)
    os.replace(out + ".tmp", out)
    print(f"exported {out} ({os.path.getsize(out) / 1e9:.3f} GB) in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    export(sys.argv[1], sys.argv[2])
