// Streams model.safetensors into wasm memory (docs/architecture.md "Data path"): the first 8 bytes say how
// long the header is; the header goes to C++, which validates every tensor against the configs
// before any weight byte arrives and allocates the data section; then every chunk of the file
// is written straight to its planned place in HEAPU8, so the file is never whole in JS.
import { LayaError, throwIfAborted } from './errors.js';
import type { Compute } from './options.js';
import type { LayaCoreModule, LayaSessionHandle } from './core/laya-core.js';
import { expectEmptyResult, numberField, parseSessionJson } from './core/session-result.js';
import type { OpenedFile } from './sources/checkpoint-source.js';
import { concatBytes } from './stream/byte-reader.js';

const kLengthBytes = 8;

/**
 * `weights`: 'stored' keeps the file's dtypes; 'q8' quantizes an F32 / F16 / BF16 checkpoint while
 * it streams in (docs/q8-format.md): C++ plans the weights buffer at q8 size and the file's bytes
 * pass through its staging window (1 MiB), each window quantized before the next is read, so memory
 * after the load is the q8 size whatever the download's. `compute` 'int8' (which implies 'q8')
 * multiplies those q8 matrices in integers.
 */
export async function streamWeights(core: LayaCoreModule, session: LayaSessionHandle, opened: OpenedFile,
                                    signal: AbortSignal | undefined, weights: 'stored' | 'q8' = 'stored',
                                    compute: Compute = 'f32'): Promise<void> {
  const { file, reader } = opened;
  const { header, headerEnd, size } = await readHeader(session, opened);
  throwIfAborted(signal);

  const planned = compute === 'int8' ? session.planWeightsInt8(header, size)
    : weights === 'q8' ? session.planWeightsQ8(header, size) : session.planWeights(header, size);
  const plan = parseSessionJson<Record<string, unknown>>(planned, `${file} header`);
  const pointer = numberField(plan, 'pointer', 'planWeights');
  const dataOffset = numberField(plan, 'dataOffset', 'planWeights');
  const dataLength = numberField(plan, 'dataLength', 'planWeights');
  if (dataOffset !== headerEnd || dataOffset + dataLength !== size) {
    throw new LayaError('internal',
      `planWeights: data section [${dataOffset}, +${dataLength}) does not follow the header (${headerEnd}) to the end of the ${size}-byte file`);
  }
  // planWeights grew memory: every view taken before it is stale, so read HEAPU8 afresh each time.
  const heap = (): Uint8Array => core.HEAPU8;
  if (plan['stagePointer'] !== undefined) {
    // The weights buffer is q8-sized; the file's bytes only ever pass through the window.
    await streamStaged(session, plan, heap, opened, dataLength, signal);
    return;
  }
  if (pointer + dataLength > heap().byteLength) {
    throw new LayaError('internal',
      `planWeights: pointer ${pointer} + ${dataLength} bytes lies beyond wasm memory (${heap().byteLength} bytes)`);
  }
  // Each GEMM matrix is rearranged for the kernels as soon as its last byte is in, overlapping the download.
  await reader.readInto(heap, pointer, dataLength, (written) => {
    expectEmptyResult(session.weightsWritten(written), 'weightsWritten');
  });
  await reader.expectEnd();
}

/** The safetensors header: its first 8 bytes say how long it is (C++ checks the length). */
export async function readHeader(session: LayaSessionHandle, opened: OpenedFile): Promise<{ header: Uint8Array; headerEnd: number; size: number }> {
  const { file, location, size, reader } = opened;
  if (size === undefined) {
    throw new LayaError('network', `${file}: the size of ${location} is unknown`, { file });
  }
  if (size < kLengthBytes) {
    throw new LayaError('invalid_checkpoint',
      `${file}: ${location} is ${size} bytes, too short for the 8-byte header length`, { file });
  }
  const prefix = await reader.readBytes(kLengthBytes);
  const needed = parseSessionJson<Record<string, unknown>>(session.headerBytesNeeded(prefix, size), `${file} header`);
  const headerEnd = numberField(needed, 'headerEnd', `${file} header`);
  if (headerEnd < kLengthBytes || headerEnd > size) {
    throw new LayaError('invalid_checkpoint',
      `${file}: its header would end at byte ${headerEnd}, outside the ${size}-byte file`, { file });
  }
  const header = concatBytes([prefix, await reader.readBytes(headerEnd - kLengthBytes)]);
  return { header, headerEnd, size };
}

/** The data section through C++'s staging window, one window at a time, each quantized as it fills. */
async function streamStaged(session: LayaSessionHandle, plan: Record<string, unknown>, heap: () => Uint8Array,
                            opened: OpenedFile, dataLength: number, signal: AbortSignal | undefined): Promise<void> {
  const stagePointer = numberField(plan, 'stagePointer', 'planWeightsQ8');
  const stageBytes = numberField(plan, 'stageBytes', 'planWeightsQ8');
  if (stageBytes < 1 || stagePointer + stageBytes > heap().byteLength) {
    throw new LayaError('internal', `planWeightsQ8: a staging window of ${stageBytes} bytes at ${stagePointer} lies outside wasm memory`);
  }
  for (let at = 0; at < dataLength; at += stageBytes) {
    throwIfAborted(signal);
    const n = Math.min(stageBytes, dataLength - at);
    await opened.reader.readInto(heap, stagePointer, n);
    expectEmptyResult(session.weightsStaged(n), 'weightsStaged');
  }
  await opened.reader.expectEnd();
}
