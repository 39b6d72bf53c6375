// A GpuBatch packed into the one u32 table every kernel binds: a header (row counts and where each
// table starts, kernels/wgsl-common.ts kBatchHeader), the batch's own tables, and the ones derived
// here so kernels need no search: each token's and each marker's sequence, and attention's query
// blocks. The batch is checked first, as cpp/engine/batch.h checks it, so no kernel reads out of range.
import { LayaError } from '../errors.js';
import { kAttentionQueryBlock } from './kernels/attention.js';
import { type BatchRows, kBatchHeader, kBatchHeaderWords } from './kernels/wgsl-common.js';
import type { GpuBatch, GpuModel, GpuProgram } from './program.js';

export interface PackedBatch {
  words: Uint32Array<ArrayBuffer>;
  rows: BatchRows;
}

/** Words of the packed table for a batch of at most `bucket`'s rows. */
export function batchWords(bucket: { tokens: number; seqs: number; markers: number }): number {
  const blocks = Math.ceil(bucket.tokens / kAttentionQueryBlock) + bucket.seqs;
  return kBatchHeaderWords + 2 * bucket.tokens + 3 * (bucket.seqs + 1) + 2 * bucket.markers + 2 * blocks;
}

function invalid(what: string): LayaError {
  return new LayaError('invalid_request', `forward on the GPU: ${what}`);
}

function checkOffsets(name: string, offsets: Int32Array, seqs: number, total: number, totalName: string): void {
  if (offsets.length !== seqs + 1) throw invalid(`${name} has ${offsets.length} entries, expected ${seqs + 1} (sequences + 1)`);
  if (offsets[0] !== 0) throw invalid(`${name}[0] is ${offsets[0]}, expected 0`);
  for (let s = 0; s < seqs; ++s) {
    if (offsets[s + 1]! < offsets[s]!) throw invalid(`${name} decreases at sequence ${s}`);
  }
  if (offsets[seqs] !== total) throw invalid(`${name} ends at ${offsets[seqs]}, expected ${total} (${totalName})`);
}

/** Checks `batch` against the model and the program's bucket, then packs it. */
export function packBatch(batch: GpuBatch, model: Pick<GpuModel, 'vocabSize' | 'typeCount'>, program: GpuProgram): PackedBatch {
  const seqs = batch.qtypes.length;
  const tokens = batch.ids.length;
  const markers = batch.markers.length;
  if (seqs < 1) throw invalid('the batch has no sequence');
  checkOffsets('seqStarts', batch.seqStarts, seqs, tokens, 'the number of ids');
  checkOffsets('markerStarts', batch.markerStarts, seqs, markers, 'the number of markers');
  const { bucket } = program;
  if (tokens > bucket.tokens || seqs > bucket.seqs || markers > bucket.markers) {
    throw new LayaError(
      'internal',
      `forward on the GPU: a batch of ${tokens} tokens, ${seqs} sequences and ${markers} markers does not fit the program's bucket of ${bucket.tokens}, ${bucket.seqs} and ${bucket.markers}`,
    );
  }
  const needsMarkers = program.steps.some((s) => s.op === 'act_features');
  for (let s = 0; s < seqs; ++s) {
    const len = batch.seqStarts[s + 1]! - batch.seqStarts[s]!;
    if (len < 1) throw invalid(`sequence ${s} is empty`);
    const first = batch.markerStarts[s]!;
    const end = batch.markerStarts[s + 1]!;
    if (needsMarkers && end === first) throw invalid(`sequence ${s} has no marker`);
    for (let m = first; m < end; ++m) {
      const at = batch.markers[m]!;
      if (!(at >= 0 && at < len)) throw invalid(`marker ${m} is token ${at} of sequence ${s}, which has ${len} tokens`);
    }
    const qtype = batch.qtypes[s]!;
    if (model.typeCount > 0 && !(qtype >= 0 && qtype < model.typeCount)) {
      throw invalid(`sequence ${s} has question type ${qtype}, expected 0 to ${model.typeCount - 1}`);
    }
  }
  for (let t = 0; t < tokens; ++t) {
    const id = batch.ids[t]!;
    if (!(id >= 0 && id < model.vocabSize)) throw invalid(`token ${t} has id ${id}, expected 0 to ${model.vocabSize - 1}`);
  }

  const blocks: number[] = [];
  for (let s = 0; s < seqs; ++s) {
    const len = batch.seqStarts[s + 1]! - batch.seqStarts[s]!;
    for (let q0 = 0; q0 < len; q0 += kAttentionQueryBlock) blocks.push(s, q0);
  }
  const words = new Uint32Array(batchWords(bucket));
  let at = kBatchHeaderWords;
  const put = (slot: number, values: ArrayLike<number>) => {
    words[slot] = at;
    for (let i = 0; i < values.length; ++i) words[at + i] = values[i]!;
    at += values.length;
  };
  words[kBatchHeader.tokens] = tokens;
  words[kBatchHeader.seqs] = seqs;
  words[kBatchHeader.markers] = markers;
  words[kBatchHeader.blocks] = blocks.length / 2;
  put(kBatchHeader.ids, batch.ids);
  put(kBatchHeader.seqStarts, batch.seqStarts);
  put(kBatchHeader.markerList, batch.markers);
  put(kBatchHeader.markerStarts, batch.markerStarts);
  // A graph without type embeddings (typeCount 0) reads no qtype; any value is then packed as 0.
  put(kBatchHeader.qtypes, batch.qtypes.map((q) => Math.max(q, 0)));
  const tokenSeq = new Uint32Array(tokens);
  const markerSeq = new Uint32Array(markers);
  for (let s = 0; s < seqs; ++s) {
    tokenSeq.fill(s, batch.seqStarts[s]!, batch.seqStarts[s + 1]!);
    markerSeq.fill(s, batch.markerStarts[s]!, batch.markerStarts[s + 1]!);
  }
  put(kBatchHeader.tokenSeq, tokenSeq);
  put(kBatchHeader.markerSeq, markerSeq);
  put(kBatchHeader.blockTable, blocks);
  return { words: words.subarray(0, at), rows: { tokens, seqs, markers, blocks: blocks.length / 2 } };
}
