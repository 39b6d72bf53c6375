// Reading one file front to back, with the two kinds of destination the loader needs: a small
// JS array (the safetensors header, the config texts) or wasm memory at a planned offset (the
// weights, written chunk by chunk so the file is never whole in JS; see the data path in
// docs/architecture.md).

export interface ByteReader {
  /** Exactly `n` bytes into a new array; a file that ends first is an error naming it. */
  readBytes(n: number): Promise<Uint8Array>;
  /**
   * The next `length` bytes written to `heap()` from `offset` on. `heap` is called again for every
   * chunk so a view is never kept across an await. `onWritten` hears, after each chunk, how many of
   * the `length` bytes are written so far.
   */
  readInto(heap: () => Uint8Array, offset: number, length: number, onWritten?: (written: number) => void): Promise<void>;
  /** Everything left (small files only). */
  readRest(): Promise<Uint8Array>;
  /** Checks the file has no bytes left; more is an error naming the file. */
  expectEnd(): Promise<void>;
  /** Releases the file or connection. Safe to call more than once, and after an error. */
  close(): Promise<void>;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.byteLength;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Gives a spent buffer's memory back now rather than at the engine's next collection, by detaching
 * it (ArrayBuffer.prototype.transfer(0), where the engine has it). JavaScriptCore collects late:
 * a load's spent chunks, as many bytes as the checkpoint, would pile up beside the wasm memory and
 * double a WebKit page's peak. Only for a buffer that nothing else still reads.
 */
export function releaseBuffer(buffer: ArrayBufferLike): void {
  const transfer = (buffer as { transfer?: (length: number) => ArrayBuffer }).transfer;
  if (typeof transfer !== 'function' || !(buffer instanceof ArrayBuffer)) return;
  try {
    transfer.call(buffer, 0);
  } catch {
    // Already detached, or not detachable (wasm memory): nothing to give back.
  }
}
