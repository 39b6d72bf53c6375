// A ByteReader over a WHATWG ReadableStream (fetch bodies, Blob.stream(), Cache API responses).
// Each chunk is copied once, straight to its destination; a chunk that straddles two reads is
// kept as a subarray (no copy) until the next read. A chunk given to keep (not lent) is detached
// once every byte of it is copied (releaseBuffer): every stream read here is made for this reader
// alone, and the producers (a tap that stores the download) are done with a chunk once they hand
// it on. BYOB readers cannot target wasm memory
// (docs/toolchain.md "Moving bytes into wasm memory"), so this is the browser's fastest path.
import { LayaError, abortError, describeError, isAbortError, type LayaErrorCode } from '../errors.js';
import type { ByteReader } from './byte-reader.js';
import { concatBytes, releaseBuffer } from './byte-reader.js';

export interface StreamByteReaderOptions {
  /** The checkpoint file, for messages. */
  file: string;
  /** Its URL or path, for messages. */
  location: string;
  /** The size the file should have, when known (a longer or shorter stream is an error). */
  size?: number | undefined;
  /** The code of a read failure or of a stream that ends early: "network" for downloads. */
  failureCode: LayaErrorCode;
  signal?: AbortSignal | undefined;
  onBytes?: ((bytes: number) => void) | undefined;
  /** The stream's chunks are lent, valid until the next read (lending-reader.ts): readRest() copies those it keeps. */
  lentChunks?: boolean | undefined;
}

export class StreamByteReader implements ByteReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private pending: Uint8Array | null = null;
  /** The last chunk read, when it is this reader's to release once spent (a given chunk spanning its buffer). */
  private spent: Uint8Array | null = null;
  private received = 0;
  private done = false;
  private closed = false;

  constructor(stream: ReadableStream<Uint8Array>, private readonly options: StreamByteReaderOptions) {
    this.reader = stream.getReader();
  }

  async readBytes(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const chunk = await this.next(n - filled);
      out.set(chunk, filled);
      filled += chunk.byteLength;
    }
    return out;
  }

  async readInto(heap: () => Uint8Array, offset: number, length: number,
                 onWritten?: (written: number) => void): Promise<void> {
    let written = 0;
    while (written < length) {
      const chunk = await this.next(length - written);
      heap().set(chunk, offset + written);
      written += chunk.byteLength;
      onWritten?.(written);
    }
  }

  async readRest(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for (;;) {
      const chunk = await this.nextOrEnd(Infinity);
      if (chunk === null) return concatBytes(parts);
      // Kept as they are, given chunks are no longer this reader's to release.
      if (chunk.buffer === this.spent?.buffer) this.spent = null;
      parts.push(this.options.lentChunks === true ? chunk.slice() : chunk);
    }
  }

  async expectEnd(): Promise<void> {
    const extra = await this.nextOrEnd(Infinity);
    if (extra !== null) {
      const { file, location, size } = this.options;
      throw new LayaError('invalid_checkpoint',
        `${file}: ${location} has more bytes than the ${size ?? this.received - extra.byteLength} expected`, { file });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pending = null;
    this.spent = null;
    if (!this.done) await this.reader.cancel().catch(() => undefined);
    this.reader.releaseLock();
  }

  /** The next chunk of at most `max` bytes; the end of the stream is an error here. */
  private async next(max: number): Promise<Uint8Array> {
    const chunk = await this.nextOrEnd(max);
    if (chunk !== null) return chunk;
    const { file, location, size, failureCode } = this.options;
    // A file that is shorter than it said is truncated; a download that stops early may only have lost
    // its connection (network: worth a retry), so it is not called a truncated file.
    if (failureCode === 'invalid_checkpoint' && size !== undefined) {
      throw new LayaError(failureCode, `${file} is truncated: ${location} ended after ${this.received} of its ${size} bytes`, { file });
    }
    const of = size === undefined ? '' : ` of ${size}`;
    throw new LayaError(failureCode, `${file}: ${location} ended after ${this.received}${of} bytes (truncated)`, { file });
  }

  private async nextOrEnd(max: number): Promise<Uint8Array | null> {
    let chunk = this.pending;
    this.pending = null;
    while (chunk === null || chunk.byteLength === 0) {
      chunk = await this.pull();
      if (chunk === null) return null;
    }
    if (chunk.byteLength > max) {
      // Taken before the next pull (nextOrEnd), so a lent chunk's rest needs no copy.
      this.pending = chunk.subarray(max);
      chunk = chunk.subarray(0, max);
    }
    return chunk;
  }

  private async pull(): Promise<Uint8Array | null> {
    const { signal, file, location, size, failureCode } = this.options;
    if (signal?.aborted) throw abortError(signal);
    // Pulled only once the last chunk is used up (nextOrEnd takes its rest first).
    if (this.spent !== null) releaseBuffer(this.spent.buffer);
    this.spent = null;
    if (this.done) return null;
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await this.reader.read();
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) throw abortError(signal);
      if (error instanceof LayaError) throw error;
      const of = size === undefined ? '' : ` of ${size}`;
      throw new LayaError(failureCode,
        `${file}: reading ${location} failed after ${this.received}${of} bytes: ${describeError(error)}`,
        { file, cause: error });
    }
    if (signal?.aborted) throw abortError(signal);
    if (result.done) {
      this.done = true;
      return null;
    }
    const value = result.value;
    if (!(value instanceof Uint8Array)) {
      throw new LayaError('internal', `${file}: the stream of ${location} gave a ${typeof value}, not bytes`, { file });
    }
    this.received += value.byteLength;
    if (this.options.lentChunks !== true && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) this.spent = value;
    this.options.onBytes?.(value.byteLength);
    return value;
  }
}
