// The arithmetic of a GPU step on a batch, counted as cpp/engine/step_profile.h counts it for the
// CPU so that GF/s figures of both backends compare: 2·m·n·k per GEMM, 4·64 per visible (query,
// key) pair per head for attention, 0 for the memory-bound steps.
import type { GpuBatch, GpuStep } from './program.js';

export function stepGflop(step: GpuStep, batch: GpuBatch): number {
  switch (step.op) {
    case 'gemm':
      return (2 * rowsOf(step.rows, batch) * step.n * step.k) / 1e9;
    case 'attention':
      return (4 * 64 * step.heads * visiblePairs(batch, step.window)) / 1e9;
    default:
      return 0;
  }
}

function rowsOf(rows: 'tokens' | 'seqs' | 'markers', batch: GpuBatch): number {
  if (rows === 'tokens') return batch.ids.length;
  if (rows === 'seqs') return batch.qtypes.length;
  return batch.markers.length;
}

/** (query, key) pairs within each sequence with |i - j| <= window (every pair when window is null). */
function visiblePairs(batch: GpuBatch, window: number | null): number {
  let pairs = 0;
  for (let s = 0; s + 1 < batch.seqStarts.length; ++s) {
    const len = (batch.seqStarts[s + 1] as number) - (batch.seqStarts[s] as number);
    if (window === null || window >= len) {
      pairs += len * len;
      continue;
    }
    for (let i = 0; i < len; ++i) pairs += Math.min(len - 1, i + window) - Math.max(0, i - window) + 1;
  }
  return pairs;
}
