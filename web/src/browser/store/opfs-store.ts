// The weight store on the origin private file system: per file, <name>.bin holds the bytes and
// <name>.json the record, written after the bytes are closed, so a file without its record (a tab
// closed mid-download) is never used, and a record whose size differs from the bytes' (evicted
// or torn) is removed. At most kStoreBoundBytes are in flight to the disk. Files are read and
// written by one of two routes (OpfsRoute), the faster where the engine has it:
//   'sync-handles'  FileSystemSyncAccessHandle, in the worker the store runs in or in one it
//                   starts (opfs-files.ts): writes and reads in the page's own process, reads
//                   straight into wasm memory where the handle can reach it;
//   'writable'      createWritable() (a swap file the engine commits on close) and File slices
//                   (blob-byte-reader.ts), on the page's thread: WebKitGTK, which refuses sync
//                   handles, and pages that cannot start a worker.
import type { ByteReader } from '../../stream/byte-reader.js';
import { BlobByteReader, type BlobByteReaderOptions } from '../../stream/blob-byte-reader.js';
import { syncFilesHere, type SyncFiles, type WorkerScopeGlobals } from './opfs-files.js';
import { SyncHandleByteReader } from './sync-handle-reader.js';
import { kStoreBoundBytes, type StoreKind, type StoreWriter, type StoredFile, type StoredRecord, type WeightStore } from '../../store/weight-store.js';

/** The parts of the File System Access API used here. */
interface Writable {
  write(data: Uint8Array | string): Promise<void>;
  close(): Promise<void>;
  abort(reason?: unknown): Promise<void>;
}
interface FileHandle {
  getFile(): Promise<File>;
  createWritable?(options?: { keepExistingData?: boolean }): Promise<Writable>;
}
export interface DirectoryLike {
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandle>;
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<DirectoryLike>;
  removeEntry(name: string): Promise<void>;
}

export type OpfsRoute = 'sync-handles' | 'writable';

/** One file being written, by either route: writes complete in order. */
interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
  /** A buffer of `bytes` that an earlier write is done with, if there is one (coalescing reuses it). */
  spare?(bytes: number): Uint8Array | undefined;
  close(): Promise<void>;
  abort(): Promise<void>;
}

export class OpfsStore implements WeightStore {
  readonly kind: StoreKind = 'opfs';
  readonly where = 'the origin private file system';
  readonly keeper = 'the browser';

  /** Where sync handles are opened, or null on the writable route: known once the probe has answered. */
  private readonly files: Promise<SyncFiles | null>;

  private constructor(private readonly folder: DirectoryLike, private readonly folderName: string, files: SyncFiles | null) {
    // The probe (a worker's start, on a page) runs while the load compiles its wasm module.
    this.files = files === null ? Promise.resolve(null) : syncHandlesWork(folder, folderName, files).then((works) => (works ? files : null));
  }

  async route(): Promise<OpfsRoute> {
    return await this.files === null ? 'writable' : 'sync-handles';
  }

  /**
   * The folder `name` under the origin's OPFS root (throws SecurityError where storage is refused),
   * on the sync-handle route where this context can open one there (asked in the background:
   * route()), else on createWritable().
   */
  static async open(root: DirectoryLike, name: string, globals: WorkerScopeGlobals = globalThis as WorkerScopeGlobals): Promise<OpfsStore> {
    const folder = await root.getDirectoryHandle(name, { create: true });
    return new OpfsStore(folder, name, syncFilesHere(globals));
  }

  async find(url: string): Promise<StoredFile | undefined> {
    const name = await entryName(url);
    let record: StoredRecord;
    let blob: File;
    try {
      record = JSON.parse(await (await (await this.folder.getFileHandle(`${name}.json`)).getFile()).text()) as StoredRecord;
      blob = await (await this.folder.getFileHandle(`${name}.bin`)).getFile();
    } catch {
      return undefined;
    }
    if (!Number.isSafeInteger(record.size) || blob.size !== record.size) {
      await this.remove(url);
      return undefined;
    }
    const files = await this.files;
    if (files === null) return { record, bytes: blob };
    // The handle is opened by the first read, so that nothing holds the file while the load asks
    // the server whether it changed (a new version removes it).
    const openReader = (options: BlobByteReaderOptions): ByteReader => new SyncHandleByteReader(record.size,
      () => files.open(this.folderName, `${name}.bin`, null), () => new BlobByteReader(blob, options), options);
    return { record, bytes: { openReader } };
  }

  async begin(url: string, record: StoredRecord): Promise<StoreWriter> {
    const name = await entryName(url);
    // A new download replaces the old file: its record goes first, so the old bytes are never used again.
    await this.folder.removeEntry(`${name}.json`).catch(() => undefined);
    const sink = await this.create(`${name}.bin`, record.size);
    const inFlight: Array<{ bytes: number; done: Promise<void> }> = [];
    let pending = 0;
    let failure: unknown;
    let closed = false;
    const settle = async (): Promise<void> => {
      const first = inFlight.shift();
      if (first === undefined) return;
      await first.done;
      pending -= first.bytes;
    };
    return {
      spareBuffer: (bytes) => sink.spare?.(bytes),
      write: async (chunk) => {
        if (failure !== undefined) throw failure;
        const done = sink.write(chunk).catch((error: unknown) => { failure ??= error; });
        inFlight.push({ bytes: chunk.byteLength, done });
        pending += chunk.byteLength;
        while (pending > kStoreBoundBytes) await settle();
        if (failure !== undefined) throw failure;
      },
      commit: async () => {
        while (inFlight.length > 0) await settle();
        if (failure !== undefined) throw failure;
        closed = true;
        await sink.close();
        // The record only for bytes read back whole: WebKitGTK can resolve close() on a file written
        // with createWritable() that the next browser finds short.
        const kept = (await (await this.folder.getFileHandle(`${name}.bin`)).getFile()).size;
        if (kept !== record.size) throw new Error(`the stored file holds ${kept} of its ${record.size} bytes after it was closed`);
        const text = new TextEncoder().encode(JSON.stringify(record));
        const json = await this.create(`${name}.json`, text.byteLength);
        await json.write(text);
        await json.close();
      },
      abort: async () => {
        while (inFlight.length > 0) await settle().catch(() => undefined);
        if (!closed) await sink.abort().catch(() => undefined);
        closed = true;
        await this.remove(url);
      },
    };
  }

  async remove(url: string): Promise<void> {
    const name = await entryName(url);
    await this.folder.removeEntry(`${name}.json`).catch(() => undefined);
    await this.folder.removeEntry(`${name}.bin`).catch(() => undefined);
  }

  /**
   * `file` opened for writing `size` bytes, by the store's route. On the sync-handle route the file
   * is given its length at once (one quota request, not one per write; a disk too small fails
   * here). On either route each written buffer comes back to be filled again (a 0.84 GB download
   * then leaves a few pieces for the collector, not a hundred: WebKit's collector lets them pile up).
   */
  private async create(file: string, size: number): Promise<FileSink> {
    const files = await this.files;
    if (files !== null) {
      const opened = await files.open(this.folderName, file, size);
      const spares: ArrayBuffer[] = [];
      let at = 0;
      return {
        write: async (chunk) => {
          const offset = at;
          at += chunk.byteLength;
          const done = await opened.write(offset, exactView(chunk).buffer as ArrayBuffer);
          if (done !== undefined) spares.push(done);
        },
        spare: (bytes) => takeSpare(spares, bytes),
        close: () => opened.close(true),
        abort: () => opened.close(false),
      };
    }
    const handle = await this.folder.getFileHandle(file, { create: true });
    if (handle.createWritable === undefined) throw new Error('this engine has no FileSystemFileHandle.createWritable()');
    const writable = await handle.createWritable({ keepExistingData: false });
    const spares: ArrayBuffer[] = [];
    return {
      write: async (chunk) => {
        const exact = exactView(chunk);
        await writable.write(exact);
        spares.push(exact.buffer as ArrayBuffer);
      },
      spare: (bytes) => takeSpare(spares, bytes),
      close: () => writable.close(),
      abort: () => writable.abort(),
    };
  }
}

/** A Safari OPFS bug writes a view's whole buffer, ignoring its offset: hand it exact buffers. */
function exactView(chunk: Uint8Array): Uint8Array {
  return chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice();
}

/** A written buffer of `bytes` taken from `spares`, to be filled again, if there is one. */
function takeSpare(spares: ArrayBuffer[], bytes: number): Uint8Array | undefined {
  const index = spares.findIndex((b) => b.byteLength === bytes);
  return index < 0 ? undefined : new Uint8Array(spares.splice(index, 1)[0] as ArrayBuffer);
}

/**
 * Whether `files` can open a sync access handle in `folder` (WebKitGTK refuses them), asked once
 * per place: the page's Worker, or this worker.
 */
function syncHandlesWork(folder: DirectoryLike, folderName: string, files: SyncFiles): Promise<boolean> {
  let answer = kAsked.get(files);
  if (answer === undefined) {
    answer = (async () => {
      try {
        await (await files.open(folderName, kProbeFile, 0)).close();
        return true;
      } catch {
        return false;
      } finally {
        await folder.removeEntry(kProbeFile).catch(() => undefined);
      }
    })();
    kAsked.set(files, answer);
  }
  return answer;
}

const kAsked = new WeakMap<SyncFiles, Promise<boolean>>();
const kProbeFile = 'laya-sync-handle-probe';

/** A file name for a URL: the hex SHA-256 of it (URLs hold characters file names cannot). */
async function entryName(url: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(url));
  return Array.from(new Uint8Array(digest).subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}
