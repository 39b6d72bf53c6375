// The weight store on the origin private file system: per file, <name>.bin holds the bytes and
// <name>.json the record, written after the bytes are closed, so a file without its record (a tab
// closed mid-download) is never used, and a record whose size differs from the bytes' (evicted
// or torn) is removed. Writes go through createWritable() (a swap file the engine commits on
// close), at most kStoreBoundBytes in flight; reads are File slices (blob-byte-reader.ts).
import { exactView, kStoreBoundBytes, type StoreKind, type StoreWriter, type StoredFile, type StoredRecord, type WeightStore } from './weight-store.js';

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

export class OpfsStore implements WeightStore {
  readonly kind: StoreKind = 'opfs';

  constructor(private readonly folder: DirectoryLike) {}

  /** The folder `name` under the origin's OPFS root (throws SecurityError where storage is refused). */
  static async open(root: DirectoryLike, name: string): Promise<OpfsStore> {
    return new OpfsStore(await root.getDirectoryHandle(name, { create: true }));
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
    return { record, bytes: blob };
  }

  async begin(url: string, record: StoredRecord): Promise<StoreWriter> {
    const name = await entryName(url);
    // A new download replaces the old file: its record goes first, so the old bytes are never used again.
    await this.folder.removeEntry(`${name}.json`).catch(() => undefined);
    const handle = await this.folder.getFileHandle(`${name}.bin`, { create: true });
    if (handle.createWritable === undefined) throw new Error('this engine has no FileSystemFileHandle.createWritable()');
    const writable = await handle.createWritable({ keepExistingData: false });
    const inFlight: Array<{ bytes: number; done: Promise<void> }> = [];
    let pending = 0;
    let failure: unknown;
    let closed = false;
    const folder = this.folder;
    const settle = async (): Promise<void> => {
      const first = inFlight.shift();
      if (first === undefined) return;
      await first.done;
      pending -= first.bytes;
    };
    return {
      async write(chunk) {
        if (failure !== undefined) throw failure;
        const done = writable.write(exactView(chunk)).catch((error: unknown) => { failure ??= error; });
        inFlight.push({ bytes: chunk.byteLength, done });
        pending += chunk.byteLength;
        while (pending > kStoreBoundBytes) await settle();
        if (failure !== undefined) throw failure;
      },
      async commit() {
        while (inFlight.length > 0) await settle();
        if (failure !== undefined) throw failure;
        closed = true;
        await writable.close();
        const json = await (await folder.getFileHandle(`${name}.json`, { create: true })).createWritable?.({ keepExistingData: false });
        if (json === undefined) throw new Error('this engine has no FileSystemFileHandle.createWritable()');
        await json.write(JSON.stringify(record));
        await json.close();
      },
      async abort() {
        while (inFlight.length > 0) await settle().catch(() => undefined);
        if (!closed) await writable.abort().catch(() => undefined);
        closed = true;
        await folder.removeEntry(`${name}.json`).catch(() => undefined);
        await folder.removeEntry(`${name}.bin`).catch(() => undefined);
      },
    };
  }

  async remove(url: string): Promise<void> {
    const name = await entryName(url);
    await this.folder.removeEntry(`${name}.json`).catch(() => undefined);
    await this.folder.removeEntry(`${name}.bin`).catch(() => undefined);
  }
}

/** A file name for a URL: the hex SHA-256 of it (URLs hold characters file names cannot). */
async function entryName(url: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(url));
  return Array.from(new Uint8Array(digest).subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}
