// A ByteReader over a local file: fs reads land straight in wasm memory (no JS copy: docs/toolchain.md
// "Moving bytes into wasm memory"), in chunks so that progress is reported and an abort is noticed
// between them.
import type { FileHandle } from 'node:fs/promises';
import { LayaError, throwIfAborted } from '../errors.js';
import type { ByteReader } from '../stream/byte-reader.js';

const kChunkBytes = 16 * 1024 * 1024;

export interface FileHandleReaderOptions {
  file: string;
  path: string;
  size: number;
  signal?: AbortSignal | undefined;
  onBytes?: ((bytes: number) => void) | undefined;
}

export class FileHandleReader implements ByteReader {
  private position = 0;
  private closed = false;
  private readonly opened: Promise<FileHandle>;

  /** `handle` may still be opening (a stored file, opened only once the load reads it): its failure is the first read's. */
  constructor(handle: FileHandle | Promise<FileHandle>, private readonly options: FileHandleReaderOptions) {
    this.opened = Promise.resolve(handle);
    // A reader closed unread never asks: its failure to open is nobody's.
    this.opened.catch(() => undefined);
  }

  async readBytes(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    await this.readInto(() => out, 0, n);
    return out;
  }

  async readInto(heap: () => Uint8Array, offset: number, length: number,
                 onWritten?: (written: number) => void): Promise<void> {
    const handle = await this.opened;
    let done = 0;
    while (done < length) {
      throwIfAborted(this.options.signal);
      const want = Math.min(kChunkBytes, length - done);
      const { bytesRead } = await handle.read(heap(), offset + done, want, this.position);
      if (bytesRead === 0) {
        const { file, path, size } = this.options;
        // The file shrank after it was opened: its size, which the header was checked against, is gone.
        throw new LayaError('invalid_checkpoint', `${file} is truncated: ${path} ended after ${this.position} of its ${size} bytes`, { file });
      }
      this.position += bytesRead;
      done += bytesRead;
      this.options.onBytes?.(bytesRead);
      onWritten?.(done);
    }
    throwIfAborted(this.options.signal);
  }

  async readRest(): Promise<Uint8Array> {
    const rest = await this.readBytes(Math.max(0, this.options.size - this.position));
    await this.expectEnd();
    return rest;
  }

  async expectEnd(): Promise<void> {
    const probe = new Uint8Array(1);
    const { bytesRead } = await (await this.opened).read(probe, 0, 1, this.position);
    if (bytesRead !== 0) {
      const { file, path, size } = this.options;
      throw new LayaError('invalid_checkpoint', `${file}: ${path} grew beyond its ${size} bytes while being read`, { file });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const handle = await this.opened.catch(() => undefined);
    await handle?.close();
  }
}
