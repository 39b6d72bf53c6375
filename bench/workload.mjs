// The speed benchmark's questions and its FLOP count. A question of L tokens is
// [CLS] random ids ... [SEP] with 4 [MASK] markers, seeded so the engine and onnxruntime-web see
// the same ids. FLOPs: 2·M·N·K per GEMM of the graph, plus attention 4·L·keys·d per layer (QKᵀ and
// PV), keys counted exactly through the sliding window (|i-j| <= local_attention/2).
export const kCls = 50281, kSep = 50282, kMask = 50284;

export function question(L, seed) {
  let s = (seed * 2654435761) >>> 0 || 1;
  const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s; };
  const ids = [kCls];
  for (let i = 1; i < L - 1; ++i) ids.push(1000 + (rnd() % 40000));
  ids.push(kSep);
  const markers = [];
  for (let j = 0; j < 4; ++j) markers.push(Math.min(L - 2, 1 + Math.floor(((j + 1) * (L - 2)) / 5)));
  for (const m of markers) ids[m] = kMask;
  return { ids, markers, qtype: 0 };
}

/** Visible key count summed over queries for a window of ±half (half = Infinity: global). */
function keyPairs(L, half) {
  let n = 0;
  for (let i = 0; i < L; ++i) n += Math.min(L - 1, i + half) - Math.max(0, i - half) + 1;
  return n;
}

/** FLOPs of one question of L tokens with k markers. shape: {d, layers, inter, headLayers, acts, globalEvery, window}. */
export function questionFlops(shape, L, k = 4) {
  const { d, layers, inter, headLayers } = shape;
  const every = shape.globalEvery ?? 3, half = (shape.window ?? 128) / 2;
  const gemm = (m, n, kk) => 2 * m * n * kk;
  let f = 0;
  for (let i = 0; i < layers; ++i) {
    f += gemm(L, 3 * d, d) + gemm(L, d, d) + gemm(L, 2 * inter, d) + gemm(L, d, inter);
    f += 4 * d * keyPairs(L, i % every === 0 ? Infinity : half);
  }
  for (let j = 0; j < headLayers; ++j) {
    f += gemm(L, 3 * d, d) + gemm(L, d, d) + gemm(L, 4 * d, d) + gemm(L, d, 4 * d) + 4 * d * L * L;
  }
  f += gemm(k, d, d) + gemm(k, 1, d) + gemm(1, 256, d + 4) + gemm(1, (shape.acts ?? 1) + 1, 256);
  return f;
}
