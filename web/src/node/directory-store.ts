// Node's download cache as a WeightStore (store/stored-location.ts decides when a file is used,
// revalidated or replaced): <directory>/<file>, each beside its record <file>.laya.json. A file is
// written to a temporary file beside it, renamed into place on commit, and its record written
// last (renamed into place too): a file without its record, or of another size than its record's
// (torn), is never used.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LayaError, describeError } from '../errors.js';
import { kCheckpointFiles } from '../sources/checkpoint-source.js';
import type { FileUrls } from '../sources/file-urls.js';
import type { StoreKind, StoreWriter, StoredFile, StoredRecord, Validators, WeightStore } from '../store/weight-store.js';
import { FileHandleReader } from './file-handle-reader.js';

export class DirectoryStore implements WeightStore {
  readonly kind: StoreKind = 'directory';
  readonly keeper = 'the file system';
  readonly where: string;
  /** The checkpoint file each URL is stored as: the folder keeps the checkpoint's own layout. */
  private readonly files: ReadonlyMap<string, string>;

  constructor(readonly directory: string, urls: FileUrls) {
    this.where = directory;
    this.files = new Map(kCheckpointFiles.map((file) => [urls.fileUrl(file), file]));
  }

  async find(url: string): Promise<StoredFile | undefined> {
    const path = this.pathOf(url);
    const record = await readRecord(path);
    if (record === undefined) return undefined;
    const size = await stat(path).then((s) => (s.isFile() ? s.size : -1), () => -1);
    if (size !== record.size) {
      await this.remove(url);
      return undefined;
    }
    return {
      record,
      bytes: {
        // Opened only when the load takes the stored copy (the server was asked first), so that
        // nothing holds a file that a new version removes.
        openReader: ({ file, signal, onBytes }) => new FileHandleReader(openToRead(file, path), { file, path, size, signal, onBytes }),
      },
    };
  }

  begin(url: string, record: StoredRecord): Promise<StoreWriter> {
    const { size, ...validators } = record;
    return this.write(url, validators, size);
  }

  beginUnsized(url: string, validators: Validators): Promise<StoreWriter> {
    return this.write(url, validators, undefined);
  }

  async remove(url: string): Promise<void> {
    const path = this.pathOf(url);
    await rm(recordPath(path), { force: true });
    await rm(path, { force: true });
  }

  private pathOf(url: string): string {
    const file = this.files.get(url);
    if (file === undefined) throw new Error(`${url} is not a file of the checkpoint cached in ${this.directory}`);
    return join(this.directory, ...file.split('/'));
  }

  /** A writer to a temporary file that becomes `url`'s file on commit, with its record ({ size: bytes written, ...validators }) last. */
  private async write(url: string, validators: Validators, size: number | undefined): Promise<StoreWriter> {
    const path = this.pathOf(url);
    // A new download replaces the old file: its record goes first, so the old bytes are never used again.
    await rm(recordPath(path), { force: true });
    await mkdir(dirname(path), { recursive: true });
    const temp = temporaryBeside(path);
    const handle = await open(temp, 'w');
    let written = 0;
    let spare: Uint8Array | undefined;
    let closed = false;
    let renamed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await handle.close();
    };
    return {
      async write(chunk) {
        for (let at = 0; at < chunk.byteLength;) {
          const { bytesWritten } = await handle.write(chunk, at, chunk.byteLength - at);
          at += bytesWritten;
        }
        written += chunk.byteLength;
        spare = chunk;
      },
      // The last piece written is free again once its write resolved: coalescing() fills it anew.
      spareBuffer(bytes) {
        const free = spare;
        spare = undefined;
        return free !== undefined && free.byteLength === bytes ? free : undefined;
      },
      commit: async () => {
        await close();
        if (size !== undefined && written !== size) throw new Error(`${temp} holds ${written} of its ${size} bytes`);
        await rename(temp, path);
        renamed = true;
        const recordTemp = temporaryBeside(recordPath(path));
        try {
          await writeFile(recordTemp, JSON.stringify({ size: written, ...validators }));
          await rename(recordTemp, recordPath(path));
        } finally {
          await rm(recordTemp, { force: true });
        }
      },
      abort: async () => {
        await close().catch(() => undefined);
        await rm(temp, { force: true }).catch(() => undefined);
        // A commit that failed after the rename leaves a file without its record: unused, but removed.
        if (renamed) await this.remove(url).catch(() => undefined);
      },
    };
  }
}

function recordPath(path: string): string {
  return `${path}.laya.json`;
}

/** A name beside `path` that no other writer (another process, another load) picks. */
function temporaryBeside(path: string): string {
  return `${path}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** The record beside `path`, or undefined where there is none (a download that never committed) or it is not one. */
async function readRecord(path: string): Promise<StoredRecord | undefined> {
  let record: Partial<StoredRecord> | null;
  try {
    record = JSON.parse(await readFile(recordPath(path), 'utf8')) as Partial<StoredRecord> | null;
  } catch {
    return undefined;
  }
  const size = record?.size;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return undefined;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return { size, etag: text(record?.etag), lastModified: text(record?.lastModified) };
}

async function openToRead(file: string, path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    throw new LayaError('invalid_checkpoint', `${file}: cannot open the cached ${path}: ${describeError(error)}`, { file, cause: error });
  }
}
