// A ByteReader over a Blob (a stored file: a Cache API body or an OPFS File) that reads it in
// large slices, the next one already being read while the current one is copied into wasm memory.
// A Blob's stream() comes in small chunks (64 KiB and less), each a promise and a copy: most of
// what a page pays over Node to read a stored checkpoint. The Blob's size is fixed, so truncation
// is found before reading (the stores check it against the record) and again if a slice is short.
// Each slice's buffer is released once copied (releaseBuffer: JavaScriptCore collects them late).
import { LayaError, abortError, describeError, isAbortError } from '../errors.js';
import { releaseBuffer, type ByteReader } from './byte-reader.js';

export const kSliceBytes = 16 * 1024 * 1024;

export interface BlobByteReaderOptions {
  file: string;
  location: string;
  signal?: AbortSignal | undefined;
  onBytes?: ((bytes: number) => void) | undefined;
}

export class BlobByteReader implements ByteReader {
  private position = 0;
  /** The slice being read ahead: [start, end) and its bytes to come. */
  private ahead: { start: number; end: number; bytes: Promise<ArrayBuffer> } | null = null;

  constructor(private readonly blob: Blob, private readonly options: BlobByteReaderOptions) {}

  async readBytes(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    await this.readInto(() => out, 0, n);
    return out;
  }

  async readInto(heap: () => Uint8Array, offset: number, length: number, onWritten?: (written: number) => void): Promise<void> {
    const end = this.position + length;
    if (end > this.blob.size) {
      const { file, location } = this.options;
      throw new LayaError('invalid_checkpoint', `${file} is truncated: ${location} has ${this.blob.size} bytes, ${end} needed`, { file });
    }
    let written = 0;
    while (written < length) {
      const start = this.position;
      const sliceEnd = Math.min(end, start + kSliceBytes);
      const bytes = await this.slice(start, sliceEnd, end);
      heap().set(new Uint8Array(bytes), offset + written);
      releaseBuffer(bytes);
      this.position = sliceEnd;
      written += sliceEnd - start;
      this.options.onBytes?.(sliceEnd - start);
      onWritten?.(written);
    }
  }

  async readRest(): Promise<Uint8Array> {
    return this.readBytes(this.blob.size - this.position);
  }

  async expectEnd(): Promise<void> {
    if (this.position !== this.blob.size) {
      const { file, location } = this.options;
      throw new LayaError('invalid_checkpoint', `${file}: ${location} has more bytes than the ${this.position} expected`, { file });
    }
  }

  async close(): Promise<void> {
    const ahead = this.ahead;
    this.ahead = null;
    await ahead?.bytes.catch(() => undefined);
  }

  /** The bytes [start, end), reading [end, min(limit, end + slice)) ahead meanwhile. */
  private async slice(start: number, end: number, limit: number): Promise<ArrayBuffer> {
    const { signal, file, location } = this.options;
    if (signal?.aborted) throw abortError(signal);
    const ahead = this.ahead;
    this.ahead = null;
    const current = ahead !== null && ahead.start === start && ahead.end === end ? ahead.bytes : this.blob.slice(start, end).arrayBuffer();
    if (end < limit) {
      const next = Math.min(limit, end + kSliceBytes);
      this.ahead = { start: end, end: next, bytes: this.blob.slice(end, next).arrayBuffer() };
      this.ahead.bytes.catch(() => undefined);
    }
    let bytes: ArrayBuffer;
    try {
      bytes = await current;
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) throw abortError(signal);
      throw new LayaError('invalid_checkpoint', `${file}: reading ${location} failed at byte ${start}: ${describeError(error)}`, { file, cause: error });
    }
    if (signal?.aborted) throw abortError(signal);
    if (bytes.byteLength !== end - start) {
      throw new LayaError('invalid_checkpoint', `${file} is truncated: ${location} gave ${bytes.byteLength} bytes at ${start}, ${end - start} expected`, { file });
    }
    return bytes;
  }
}
