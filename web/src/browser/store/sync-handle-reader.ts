// A ByteReader over an OPFS file opened with a sync access handle (opfs-files.ts). Where the
// handle can reach wasm memory (the store runs in the package's own worker, or a page's wasm
// memory is shared: cross-origin isolated, with threads) each 16 MiB piece is read straight into
// its place in wasm memory: one copy, from the file to the weights, as Node's file reader does.
// Elsewhere the page's worker reads into a buffer it hands over (transferred, not copied), the
// page copies it into wasm memory and gives it back for the next piece. Two pieces are asked for
// at a time, so the worker reads one while the page handles the other. A file that cannot be
// opened (another tab holds its handle) is read as File slices instead (the fallback reader).
import { LayaError, abortError, isAbortError, describeError } from '../../errors.js';
import type { ByteReader } from '../../stream/byte-reader.js';
import { kSliceBytes, type BlobByteReaderOptions } from '../../stream/blob-byte-reader.js';
import type { OpfsWorkerAnswer } from './opfs-messages.js';

/** One open file, as opfs-files.ts opens it. */
export interface SyncHandleFile {
  size: number;
  /** Whether a read may land in any memory of the caller's (the handle is on the caller's thread), not only shared memory. */
  readsInPlace: boolean;
  read(at: number, length: number, target: { into: ArrayBufferLike; offset: number } | { buffer?: ArrayBuffer | undefined }): Promise<OpfsWorkerAnswer>;
  close(): Promise<void>;
}

/** Pieces asked for at once. */
const kPiecesInFlight = 2;

export class SyncHandleByteReader implements ByteReader {
  private position = 0;
  private opened: Promise<SyncHandleFile | ByteReader> | null = null;
  private readonly spare: ArrayBuffer[] = [];

  constructor(private readonly size: number, private readonly openFile: () => Promise<SyncHandleFile>,
              private readonly fallback: () => ByteReader, private readonly options: BlobByteReaderOptions) {}

  async readBytes(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    await this.readInto(() => out, 0, n);
    return out;
  }

  async readInto(heap: () => Uint8Array, offset: number, length: number, onWritten?: (written: number) => void): Promise<void> {
    const file = await this.file();
    if (!isOpenFile(file)) return file.readInto(heap, offset, length, onWritten);
    const { signal } = this.options;
    const start = this.position;
    if (start + length > this.size) throw this.truncated(`${this.size} bytes, ${start + length} needed`);
    const inFlight: Array<{ at: number; n: number; answer: Promise<OpfsWorkerAnswer> }> = [];
    let asked = 0;
    let written = 0;
    const ask = (): void => {
      const n = Math.min(kSliceBytes, length - asked);
      const view = heap();
      const target = file.readsInPlace || isShared(view.buffer) ? { into: view.buffer, offset: view.byteOffset + offset + asked } : { buffer: this.spare.pop() };
      const answer = file.read(start + asked, n, target);
      answer.catch(() => undefined);
      inFlight.push({ at: start + asked, n, answer });
      asked += n;
    };
    try {
      while (written < length) {
        while (asked < length && inFlight.length < kPiecesInFlight) ask();
        if (signal?.aborted) throw abortError(signal);
        const piece = inFlight.shift() as (typeof inFlight)[number];
        const answer = await this.settled(piece.answer, piece.at);
        if (answer.bytes !== piece.n) throw this.truncated(`${answer.bytes ?? 0} bytes at ${piece.at}, ${piece.n} expected`);
        if (answer.buffer !== undefined) {
          heap().set(new Uint8Array(answer.buffer, 0, piece.n), offset + written);
          this.spare.push(answer.buffer);
        }
        written += piece.n;
        this.position = start + written;
        this.options.onBytes?.(piece.n);
        onWritten?.(written);
      }
    } finally {
      // Pieces still asked for (an abort, a failure) land before anything else may use that memory.
      for (const piece of inFlight) await piece.answer.catch(() => undefined);
    }
  }

  async readRest(): Promise<Uint8Array> {
    const file = await this.file();
    return isOpenFile(file) ? this.readBytes(this.size - this.position) : file.readRest();
  }

  async expectEnd(): Promise<void> {
    const file = await this.file();
    if (!isOpenFile(file)) return file.expectEnd();
    if (this.position !== this.size) {
      const { file: name, location } = this.options;
      throw new LayaError('invalid_checkpoint', `${name}: ${location} has more bytes than the ${this.position} expected`, { file: name });
    }
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = Promise.reject(new Error('closed'));
    this.opened.catch(() => undefined);
    const file = await opened?.catch(() => undefined);
    await file?.close().catch(() => undefined);
  }

  /** The open file, or the fallback reader where the worker could not open it. */
  private file(): Promise<SyncHandleFile | ByteReader> {
    this.opened ??= this.openFile().then((file) => {
      if (file.size !== this.size) {
        void file.close().catch(() => undefined);
        throw this.truncated(`${file.size} bytes, ${this.size} recorded`);
      }
      return file;
    }, () => this.fallback());
    return this.opened;
  }

  private async settled(answer: Promise<OpfsWorkerAnswer>, at: number): Promise<OpfsWorkerAnswer> {
    const { signal, file, location } = this.options;
    try {
      return await answer;
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) throw abortError(signal);
      throw new LayaError('invalid_checkpoint', `${file}: reading ${location} failed at byte ${at}: ${describeError(error)}`, { file, cause: error });
    }
  }

  private truncated(detail: string): LayaError {
    const { file, location } = this.options;
    return new LayaError('invalid_checkpoint', `${file} is truncated: ${location} has ${detail}`, { file });
  }
}

function isOpenFile(file: SyncHandleFile | ByteReader): file is SyncHandleFile {
  return 'read' in file;
}

function isShared(buffer: ArrayBufferLike): buffer is SharedArrayBuffer {
  return typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer;
}
