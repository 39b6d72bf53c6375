// The Node download cache: <cache>/<folder named after the source URL>/<file>, each beside its
// record <file>.laya.json (size, ETag, Last-Modified of the answer it came from). A file missing
// from the cache is downloaded once, written to a temporary file chunk by chunk as it streams into
// wasm memory (never whole in JS), renamed into place only when every byte arrived, and its record
// written last. A later load uses it only when it has a record and the record's size (a file
// without one, or of another size, was torn: it is downloaded again), and, when the record has a
// validator, asks the server first (If-None-Match / If-Modified-Since): 304 reads it from disk, a
// new version replaces it, no answer (offline) reads it from disk with a warning. The same rules
// as the page's store (browser/store/stored-location.ts).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { LayaError, describeError } from '../errors.js';
import type { CheckpointFileName, CheckpointLocation, OpenOptions, OpenedFile } from '../sources/checkpoint-source.js';
import type { FetchedFile, HttpLocation } from '../sources/http-location.js';
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

  constructor(private readonly network: HttpLocation, root: string,
              private readonly onWarning: (message: string) => void = () => undefined) {
    this.directory = join(root, cacheFolderName(network.urls.base));
    this.local = new DirectoryLocation(this.directory);
    this.description = `${network.description} (cached in ${this.directory})`;
  }

  async open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile> {
    const path = join(this.directory, ...file.split('/'));
    const record = await completeRecord(path);
    let fetched: FetchedFile;
    if (record === undefined) {
      fetched = await this.network.fetchFile(file, options);
    } else {
      const answer = record.etag === undefined && record.lastModified === undefined
        ? 'unchanged' : await this.network.revalidate(file, record, options);
      if (answer === 'unchanged') return { ...await this.local.open(file, options), fromStore: true };
      if ('unreachable' in answer) {
        this.onWarning(`laya-wasm: ${file}: could not ask ${this.network.urls.fileUrl(file)} whether it changed (${answer.unreachable}); using the cached copy`);
        return { ...await this.local.open(file, options), fromStore: true };
      }
      fetched = answer;
    }
    // The old record goes first: whatever happens to this download, the old bytes are not used again.
    await rm(recordPath(path), { force: true });
    let stream: ReadableStream<Uint8Array>;
    try {
      stream = await tapToFile(fetched.body, path, fetched.size, recordOf(fetched));
    } catch (error) {
      await fetched.body.cancel().catch(() => undefined);
      throw error;
    }
    return {
      file,
      location: fetched.url,
      size: fetched.size,
      reader: new StreamByteReader(stream, {
        file, location: fetched.url, size: fetched.size, failureCode: 'network', lentChunks: fetched.lentChunks,
        signal: options.signal, onBytes: options.onBytes,
      }),
    };
  }
}

/** What a cached file is: its size and the validators of the answer it was downloaded from. */
interface CacheRecord {
  size: number;
  etag?: string | undefined;
  lastModified?: string | undefined;
}

function recordPath(path: string): string {
  return `${path}.laya.json`;
}

function recordOf(fetched: FetchedFile): Omit<CacheRecord, 'size'> {
  const etag = fetched.headers.get('etag')?.trim() || undefined;
  const lastModified = fetched.headers.get('last-modified')?.trim() || undefined;
  return { ...(etag === undefined ? {} : { etag }), ...(lastModified === undefined ? {} : { lastModified }) };
}

/** The record of a cached file whose size is the recorded one; undefined for a missing or torn one. */
async function completeRecord(path: string): Promise<CacheRecord | undefined> {
  let record: CacheRecord;
  try {
    record = JSON.parse(await readFile(recordPath(path), 'utf8')) as CacheRecord;
  } catch {
    return undefined;
  }
  const size = await stat(path).then((s) => (s.isFile() ? s.size : -1), () => -1);
  return Number.isSafeInteger(record.size) && size === record.size ? record : undefined;
}

/**
 * `source` passed through unchanged, each chunk also appended to a temporary file that becomes
 * `path` when the stream ends with `size` bytes (any size when unknown), its record written last;
 * removed otherwise.
 */
async function tapToFile(source: ReadableStream<Uint8Array>, path: string, size: number | undefined,
                         validators: Omit<CacheRecord, 'size'>): Promise<ReadableStream<Uint8Array>> {
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
    const record = `${recordPath(path)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
    await writeFile(record, JSON.stringify({ size: written, ...validators }));
    await rename(record, recordPath(path));
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
