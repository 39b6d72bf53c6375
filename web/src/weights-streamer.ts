// Streams model.safetensors into wasm memory (docs/architecture.md "Data path"): the first 8 bytes say how
// long the header is; the header goes to C++, which validates every tensor against the configs
// before any weight byte arrives and allocates the data section; then every chunk of the file
// is written straight to its planned place in HEAPU8, so the file is never whole in JS.
import { LayaError, throwIfAborted } from './errors.js';
import type { LayaCoreModule, LayaSessionHandle } from './core/laya-core.js';
import { expectEmptyResult, numberField, parseSessionJson } from './core/session-result.js';
import type { OpenedFile } from './sources/checkpoint-source.js';
import { concatBytes } from './stream/byte-reader.js';

const kLengthBytes = 8;

export async function streamWeights(core: LayaCoreModule, session: LayaSessionHandle, opened: OpenedFile,
                                    signal: AbortSignal | undefined): Promise<void> {
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
  throwIfAborted(signal);

  const plan = parseSessionJson<Record<string, unknown>>(session.planWeights(header, size), `${file} header`);
  const pointer = numberField(plan, 'pointer', 'planWeights');
  const dataOffset = numberField(plan, 'dataOffset', 'planWeights');
  const dataLength = numberField(plan, 'dataLength', 'planWeights');
  if (dataOffset !== headerEnd || dataOffset + dataLength !== size) {
    throw new LayaError('internal',
      `planWeights: data section [${dataOffset}, +${dataLength}) does not follow the header (${headerEnd}) to the end of the ${size}-byte file`);
  }
  // planWeights grew memory: every view taken before it is stale, so read HEAPU8 afresh each time.
  const heap = (): Uint8Array => core.HEAPU8;
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
