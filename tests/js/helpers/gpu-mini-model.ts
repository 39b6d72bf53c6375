// A small hand-built decision program in the shape the C++ side lowers a Laya graph to (embed, type
// embedding, one encoder layer with RoPE, windowed attention and a GeGLU MLP, final norm, marker head,
// act features, pooling), over weights in every dtype, with its JavaScript reference forward.
import type { GpuBatch, GpuOutputs, GpuProgram, GpuStep } from '../../../web/src/webgpu/program.js';
import * as ref from './gpu-reference.js';
import { type TestTensor, randomTensor, seeded } from './gpu-tensors.js';

export const kMini = { vocab: 50, types: 3, d: 128, heads: 2, m: 96, window: 5, theta: 10000, eps: 1e-5 };

/** Weight indices, in the order miniTensors() lists them. */
const W = {
  tokEmb: 0, typeEmb: 1, norm0: 2, wqkv: 3, wo: 4, woBias: 5, norm1: 6, norm1Bias: 7, wi: 8, wo2: 9,
  finalNorm: 10, finalBias: 11, headDense: 12, headBias: 13, logitW: 14, logitB: 15,
} as const;

export function miniTensors(seed = 11): TestTensor[] {
  const rand = seeded(seed);
  const { vocab, types, d, m } = kMini;
  const matrix = 1 / Math.sqrt(d);
  return [
    randomTensor(rand, 'tok_embeddings.weight', 'F16', [vocab, d]),
    randomTensor(rand, 'type_emb.weight', 'BF16', [types, d], 0.5),
    randomTensor(rand, 'layers.0.attn_norm.weight', 'F32', [d]),
    randomTensor(rand, 'layers.0.attn.Wqkv.weight', 'F16', [3 * d, d], 2 * matrix),
    randomTensor(rand, 'layers.0.attn.Wo.weight', 'BF16', [d, d], matrix),
    randomTensor(rand, 'layers.0.attn.Wo.bias', 'F32', [d], 0.1),
    randomTensor(rand, 'layers.0.mlp_norm.weight', 'F16', [d]),
    randomTensor(rand, 'layers.0.mlp_norm.bias', 'F16', [d], 0.1),
    randomTensor(rand, 'layers.0.mlp.Wi.weight', 'F16', [2 * m, d], 2 * matrix),
    randomTensor(rand, 'layers.0.mlp.Wo.weight', 'I8', [d, m], matrix),
    randomTensor(rand, 'final_norm.weight', 'F32', [d]),
    randomTensor(rand, 'final_norm.bias', 'F32', [d], 0.1),
    randomTensor(rand, 'head.dense.weight', 'F32', [d, d], matrix),
    randomTensor(rand, 'head.dense.bias', 'F32', [d], 0.1),
    randomTensor(rand, 'logit.weight', 'F32', [1, d], 2 * matrix),
    randomTensor(rand, 'logit.bias', 'F32', [1], 0.1),
  ];
}

/**
 * Arena offsets for a bucket: values laid end to end with odd gaps between them (the kernels' scalar
 * paths), or `aligned` on 4 floats (the tiled GEMM's vec4 views take those).
 */
function layout(bucket: GpuProgram['bucket'], aligned: boolean) {
  const { d, m } = kMini;
  let at = 0;
  const take = (floats: number) => {
    const offset = aligned ? Math.ceil((at + 1) / 4) * 4 : at + 3;
    at = offset + floats;
    return offset;
  };
  const t = bucket.tokens;
  return {
    h: take(t * d), x: take(t * d), qkv: take(t * 3 * d), att: take(t * d), mlp: take(t * 2 * m), g: take(t * m),
    markers: take(bucket.markers * d), head: take(bucket.markers * d), logits: take(bucket.markers),
    act: take(bucket.seqs * (d + 4)), pooled: take(bucket.seqs * d), floats: () => at,
  };
}

export function miniProgram(bucket: GpuProgram['bucket'], aligned = false): GpuProgram {
  const { d, m, heads, window, theta, eps } = kMini;
  const o = layout(bucket, aligned);
  const steps: GpuStep[] = [
    { op: 'embed', table: W.tokEmb, out: o.h, width: d },
    { op: 'add_type', h: o.h, table: W.typeEmb, width: d },
    { op: 'layer_norm', x: o.h, out: o.x, rows: 'tokens', width: d, w: W.norm0, b: null, eps },
    { op: 'gemm', a: o.x, out: o.qkv, rows: 'tokens', k: d, n: 3 * d, w: W.wqkv, b: null, epilogue: 'none' },
    { op: 'rope', qkv: o.qkv, heads, theta },
    { op: 'attention', qkv: o.qkv, out: o.att, heads, window },
    { op: 'gemm', a: o.att, out: o.h, rows: 'tokens', k: d, n: d, w: W.wo, b: W.woBias, epilogue: 'accumulate' },
    { op: 'layer_norm', x: o.h, out: o.x, rows: 'tokens', width: d, w: W.norm1, b: W.norm1Bias, eps },
    { op: 'gemm', a: o.x, out: o.mlp, rows: 'tokens', k: d, n: 2 * m, w: W.wi, b: null, epilogue: 'none' },
    { op: 'geglu', x: o.mlp, out: o.g, rows: 'tokens', n: m },
    { op: 'gemm', a: o.g, out: o.h, rows: 'tokens', k: m, n: d, w: W.wo2, b: null, epilogue: 'accumulate' },
    { op: 'layer_norm', x: o.h, out: o.h, rows: 'tokens', width: d, w: W.finalNorm, b: W.finalBias, eps },
    { op: 'gather_markers', h: o.h, out: o.markers, width: d },
    { op: 'gemm', a: o.markers, out: o.head, rows: 'markers', k: d, n: d, w: W.headDense, b: W.headBias, epilogue: 'gelu' },
    { op: 'gemm', a: o.head, out: o.logits, rows: 'markers', k: d, n: 1, w: W.logitW, b: W.logitB, epilogue: 'none' },
    { op: 'act_features', h: o.h, logits: o.logits, out: o.act, width: d },
    { op: 'mean_pool', h: o.h, out: o.pooled, width: d },
  ];
  return {
    graph: 'decision',
    bucket,
    arenaFloats: o.floats(),
    steps,
    outputs: { logits: { offset: o.logits, width: 1 }, act: { offset: o.act, width: d + 4 }, pooled: { offset: o.pooled, width: d } },
  };
}

/** The program's outputs computed by the reference kernels, step by step, for `batch`. */
export function miniReference(tensors: TestTensor[], batch: GpuBatch): Required<GpuOutputs> {
  const rows = { tokens: batch.ids.length, seqs: batch.qtypes.length, markers: batch.markers.length };
  const program = miniProgram(rows);
  const arena = new Float32Array(program.arenaFloats);
  const v = (i: number | null) => (i === null ? null : tensors[i]!.values);
  for (const s of program.steps) {
    switch (s.op) {
      case 'embed': ref.embed(arena, v(s.table)!, batch.ids, s.out, s.width); break;
      case 'add_type': ref.addType(arena, s.h, v(s.table)!, s.width, batch); break;
      case 'layer_norm': ref.layerNorm(arena, s.x, s.out, rows[s.rows], s.width, v(s.w)!, v(s.b), s.eps); break;
      case 'gemm': ref.gemm(arena, s.a, s.out, rows[s.rows], s.k, s.n, v(s.w)!, v(s.b), s.epilogue); break;
      case 'rope': ref.rope(arena, s.qkv, s.heads, batch.seqStarts, s.theta); break;
      case 'attention': ref.attention(arena, s.qkv, s.out, s.heads, batch.seqStarts, s.window); break;
      case 'geglu': ref.geglu(arena, s.x, s.out, rows[s.rows], s.n); break;
      case 'gather_markers': ref.gatherMarkers(arena, s.h, s.out, s.width, batch); break;
      case 'act_features': ref.actFeatures(arena, s.h, s.logits, s.out, s.width, batch); break;
      case 'mean_pool': ref.meanPool(arena, s.h, s.out, s.width, batch); break;
    }
  }
  const out = (o: { offset: number; width: number } | undefined, count: number) => arena.slice(o!.offset, o!.offset + count * o!.width);
  return {
    logits: out(program.outputs.logits, rows.markers),
    act: out(program.outputs.act, rows.seqs),
    pooled: out(program.outputs.pooled, rows.seqs),
  };
}

/** A batch of random ids over sequences of `lengths` tokens, markers spread over each. */
export function miniBatch(lengths: number[], seed = 12): GpuBatch {
  const rand = seeded(seed);
  const seqStarts = [0];
  const markers: number[] = [];
  const markerStarts = [0];
  for (const len of lengths) {
    seqStarts.push(seqStarts[seqStarts.length - 1]! + len);
    const count = Math.min(len, 1 + Math.floor(rand() * 4));
    for (let i = 0; i < count; ++i) markers.push(Math.floor(rand() * len));
    markerStarts.push(markers.length);
  }
  const tokens = seqStarts[seqStarts.length - 1]!;
  return {
    ids: Int32Array.from({ length: tokens }, () => Math.floor(rand() * kMini.vocab)),
    seqStarts: Int32Array.from(seqStarts),
    markers: Int32Array.from(markers),
    markerStarts: Int32Array.from(markerStarts),
    qtypes: Int32Array.from(lengths, () => Math.floor(rand() * kMini.types)),
  };
}
