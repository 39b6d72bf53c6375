// Where downloaded checkpoint files are kept, behind one interface so that the rule for using and
// replacing them (stored-location.ts) does not care where the bytes live: in a page the Cache API
// (browser/store/cache-api-store.ts) or the origin private file system (browser/store/opfs-store.ts),
// in Node a cache directory (node/directory-store.ts). A file is visible to find() only once every
// byte of it was written and committed, with the record of what it is.
import type { BlobByteReaderOptions } from '../stream/blob-byte-reader.js';
import type { ByteReader } from '../stream/byte-reader.js';

/** The validators of the answer a file was downloaded from: what a conditional GET asks with. */
export interface Validators {
  etag?: string | undefined;
  lastModified?: string | undefined;
}

/** What a stored file is: its length and the validators of the answer it was downloaded from. */
export interface StoredRecord extends Validators {
  size: number;
}

/**
 * A complete stored file: its record and its bytes, either a Blob read in slices
 * (blob-byte-reader.ts), or, where the engine hands a stored body over whole anyway (WebKit's Cache
 * API), the body's chunks already read and counted (taken off the array as they are loaded), or a
 * reader the store opens itself (an OPFS sync access handle, a file of Node's cache directory).
 */
export interface StoredFile {
  record: StoredRecord;
  bytes: Blob | Uint8Array[] | OpensReader;
}

/** Stored bytes that only their store knows how to read. */
export interface OpensReader {
  openReader(options: BlobByteReaderOptions): ByteReader;
}

/** One file being written. Until commit() resolves nothing of it is visible; abort() removes it. */
export interface StoreWriter {
  /**
   * Resolves once the chunk is queued; waits only while more than the store's bound is in flight.
   * The chunk is the writer's from then on: its buffer may be handed to a worker (transferred).
   */
  write(chunk: Uint8Array): Promise<void>;
  /** A buffer of `bytes` for the next chunk that a finished write gave back, where the store recycles them. */
  spareBuffer?(bytes: number): Uint8Array | undefined;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface WeightStore {
  /** Which store it is, for the bench. */
  readonly kind: StoreKind;
  /** Where the files are, for messages: "the Cache API", or a directory. */
  readonly where: string;
  /** Who grants or refuses storage, for warnings: "the browser", "the file system". */
  readonly keeper: string;
  /** The stored file when it is complete (length equal to the record's); a torn one is removed. */
  find(url: string): Promise<StoredFile | undefined>;
  /** Starts storing a file of `record.size` bytes. Throws (SecurityError, EACCES, ...) when storage is refused. */
  begin(url: string, record: StoredRecord): Promise<StoreWriter>;
  /**
   * Where the store can keep a file whose size the server did not send (a compressed body): starts
   * storing it, its record then taking the bytes written. A page's stores need the size first.
   */
  beginUnsized?(url: string, validators: Validators): Promise<StoreWriter>;
  remove(url: string): Promise<void>;
}

export type StoreKind = 'cache-api' | 'opfs' | 'directory';

/**
 * Bytes a store may hold in flight between the download and the disk (the one-pass bound): about
 * 8% of the English checkpoint. A smaller bound made a first load wait on the disk's write bursts
 * (docs/performance.md).
 */
export const kStoreBoundBytes = 64 * 1024 * 1024;

/** The validators an answer's headers give. */
export function validatorsOf(headers: Headers): Validators {
  const etag = headers.get('etag')?.trim() || undefined;
  const lastModified = headers.get('last-modified')?.trim() || undefined;
  return { ...(etag === undefined ? {} : { etag }), ...(lastModified === undefined ? {} : { lastModified }) };
}

/** Bytes gathered into one store write: fewer, larger writes (each a copy and an IPC in a browser). */
export const kStoreWriteBytes = 8 * 1024 * 1024;

/**
 * `writer` fed in kStoreWriteBytes pieces: the download's small chunks (64 KiB to 1 MiB) are copied
 * into a fresh buffer that is written when full (fewer, larger writes store a file faster:
 * docs/performance.md). The last piece is an exact copy.
 */
export function coalescing(writer: StoreWriter, pieceBytes = kStoreWriteBytes): StoreWriter {
  // A piece a finished write gave back is filled again: a 0.84 GB download then leaves a few
  // buffers behind, not a hundred for the collector.
  const fresh = (): Uint8Array => writer.spareBuffer?.(pieceBytes) ?? new Uint8Array(pieceBytes);
  let piece = fresh();
  let filled = 0;
  return {
    async write(chunk) {
      for (let at = 0; at < chunk.byteLength;) {
        const n = Math.min(pieceBytes - filled, chunk.byteLength - at);
        piece.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === pieceBytes) {
          const full = piece;
          piece = fresh();
          filled = 0;
          await writer.write(full);
        }
      }
    },
    async commit() {
      if (filled > 0) await writer.write(piece.slice(0, filled));
      filled = 0;
      await writer.commit();
    },
    abort: () => writer.abort(),
  };
}
