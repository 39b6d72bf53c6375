// The Node download cache: <cache>/<folder named after the source URL>/<file>. A file missing
// from the cache is downloaded once, written to a temporary file chunk by chunk as it streams into
// wasm memory (never whole in JS), and renamed into place only when every byte arrived; a later
// load finds it and reads it from disk without any request. Entries are never revalidated.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { LayaError, describeError } from '../errors.js';
import type { CheckpointFileName, CheckpointLocation, OpenOptions, OpenedFile } from '../sources/checkpoint-source.js';
import type { HttpLocation } from '../sources/http-location.js';
import { StreamByteReader } from '../stream/stream-byte-reader.js';
import { DirectoryLocation } from './directory-location.js';

/**
 * The cache root for options.cache: a given path, or for `true` the user's cache folder,
 * $XDG_CACHE_HOME/laya-wasm or ~/.cache/laya-wasm.
 */
export function cacheRoot(option: true | string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (typeof option === 'string') return option;
  const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'laya-wasm');
}

/** A readable, unique folder name for a source's base URL. */
export function cacheFolderName(baseUrl: string): string {
  const hash = createHash('sha256').update(baseUrl).digest('hex').slice(0, 12);
  const readable = baseUrl.replace(/^[a-z]+:\/\//i, '').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100);
  return `${readable}-${hash}`;
}

export class FileCacheLocation implements CheckpointLocation {
  readonly description: string;
  readonly directory: string;
  private readonly local: DirectoryLocation;

  constructor(private readonly network: HttpLocation, root: string) {
    this.directory = join(root, cacheFolderName(network.urls.base));
    this.local = new DirectoryLocation(this.directory);
    this.description = `${network.description} (cached in ${this.directory})`;
  }

  async open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile> {
    const path = join(this.directory, ...file.split('/'));
    if (await isFile(path)) return this.local.open(file, options);
    const fetched = await this.network.fetchFile(file, options);
    let stream: ReadableStream<Uint8Array>;
    try {
      stream = await tapToFile(fetched.body, path, fetched.size);
    } catch (error) {
      await fetched.body.cancel().catch(() => undefined);
      throw error;
    }
    return {
      file,
      location: fetched.url,
      size: fetched.size,
      reader: new StreamByteReader(stream, {
        file, location: fetched.url, size: fetched.size, failureCode: 'network',
        signal: options.signal, onBytes: options.onBytes,
      }),
    };
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * `source` passed through unchanged, each chunk also appended to a temporary file that becomes
 * `path` when the stream ends with `size` bytes (any size when unknown); removed otherwise.
 */
async function tapToFile(source: ReadableStream<Uint8Array>, path: string, size: number | undefined): Promise<ReadableStream<Uint8Array>> {
  const temp = `${path}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  let handle: FileHandle;
  try {
    await mkdir(dirname(path), { recursive: true });
    handle = await open(temp, 'w');
  } catch (error) {
    throw new LayaError('invalid_request', `cache: cannot write ${temp}: ${describeError(error)}`, { cause: error });
  }
  const reader = source.getReader();
  let written = 0;
  let settled = false;
  const discard = async (): Promise<void> => {
    if (settled) return;
    settled = true;
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
  };
  const commit = async (): Promise<void> => {
    if (size !== undefined && written !== size) return discard();
    settled = true;
    await handle.close();
    await rename(temp, path);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          await commit();
          controller.close();
          return;
        }
        for (let at = 0; at < value.byteLength;) {
          const { bytesWritten } = await handle.write(value, at, value.byteLength - at);
          at += bytesWritten;
        }
        written += value.byteLength;
        controller.enqueue(value);
      } catch (error) {
        await discard();
        throw error;
      }
    },
    async cancel(reason) {
      await discard();
      await reader.cancel(reason).catch(() => undefined);
    },
  }, { highWaterMark: 0 });
}
