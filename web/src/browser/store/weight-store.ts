// The browser's persistent store for downloaded checkpoint files, behind one interface so the
// loader does not care where the bytes live: the Cache API (cache-api-store.ts) or the origin
// private file system (opfs-store.ts), chosen per engine (choose-store.ts). A file is visible to
// find() only once every byte of it was written and committed, with the record of what it is.

/** What a stored file is: its length and the validators of the answer it was downloaded from. */
export interface StoredRecord {
  size: number;
  etag?: string | undefined;
  lastModified?: string | undefined;
}

/** A complete stored file: its record and its bytes, read by slicing (blob-byte-reader.ts). */
export interface StoredFile {
  record: StoredRecord;
  blob: Blob;
}

/** One file being written. Until commit() resolves nothing of it is visible; abort() removes it. */
export interface StoreWriter {
  /** Resolves once the chunk is queued; waits only while more than the store's bound is in flight. */
  write(chunk: Uint8Array): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface WeightStore {
  /** 'cache-api' or 'opfs', for messages and the bench. */
  readonly kind: StoreKind;
  /** The stored file when it is complete (length equal to the record's); a torn one is removed. */
  find(url: string): Promise<StoredFile | undefined>;
  /** Starts storing a file of `record.size` bytes. Throws (SecurityError, ...) when storage is refused. */
  begin(url: string, record: StoredRecord): Promise<StoreWriter>;
  remove(url: string): Promise<void>;
}

export type StoreKind = 'cache-api' | 'opfs';

/** Bytes a store may hold in flight between the download and the disk (the one-pass bound). */
export const kStoreBoundBytes = 16 * 1024 * 1024;

/** The record's fields as HTTP-style headers (the Cache API keeps them with the entry). */
export function recordOf(headers: Headers, size: number): StoredRecord {
  const etag = headers.get('etag')?.trim() || undefined;
  const lastModified = headers.get('last-modified')?.trim() || undefined;
  return { size, ...(etag === undefined ? {} : { etag }), ...(lastModified === undefined ? {} : { lastModified }) };
}

/** A Safari OPFS bug writes a view's whole buffer, ignoring its offset: hand it exact buffers. */
export function exactView(chunk: Uint8Array): Uint8Array {
  return chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice();
}
