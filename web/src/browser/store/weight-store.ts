// The browser's persistent store for downloaded checkpoint files, behind one interface so the
// loader does not care where the bytes live: the Cache API (cache-api-store.ts) or the origin
// private file system (opfs-store.ts), chosen per engine (choose-store.ts). A file is visible to
// find() only once every byte of it was written and committed, with the record of what it is.
import type { BlobByteReaderOptions } from '../../stream/blob-byte-reader.js';
import type { ByteReader } from '../../stream/byte-reader.js';

/** What a stored file is: its length and the validators of the answer it was downloaded from. */
export interface StoredRecord {
  size: number;
  etag?: string | undefined;
  lastModified?: string | undefined;
}

/**
 * A complete stored file: its record and its bytes, either a Blob read in slices
 * (blob-byte-reader.ts), or, where the engine hands a stored body over whole anyway (WebKit's Cache
 * API), the body's chunks already read and counted (taken off the array as they are loaded), or a
 * reader the store opens itself (the OPFS through sync access handles, sync-handle-reader.ts).
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
  /** 'cache-api' or 'opfs', for messages and the bench. */
  readonly kind: StoreKind;
  /** The stored file when it is complete (length equal to the record's); a torn one is removed. */
  find(url: string): Promise<StoredFile | undefined>;
  /** Starts storing a file of `record.size` bytes. Throws (SecurityError, ...) when storage is refused. */
  begin(url: string, record: StoredRecord): Promise<StoreWriter>;
  remove(url: string): Promise<void>;
}

export type StoreKind = 'cache-api' | 'opfs';

/**
 * Bytes a store may hold in flight between the download and the disk (the one-pass bound): 8% of
 * the English checkpoint. At 16 MiB a Chromium first load waited on the disk's write bursts (on
 * the 2-core machine, 1.49-1.53x the wire time at 64 MiB against 1.6-1.8x at 16; 128 no better).
 */
export const kStoreBoundBytes = 64 * 1024 * 1024;

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

/** Bytes gathered into one store write: fewer, larger writes (each a copy and an IPC in the engine). */
export const kStoreWriteBytes = 8 * 1024 * 1024;

/**
 * `writer` fed in kStoreWriteBytes pieces: the download's small chunks (64 KiB to 1 MiB) are copied
 * into a fresh buffer that is written when full (in Chromium, 8 MiB writes store a 0.84 GB file
 * about a fifth faster than the network's chunks do). The last piece is an exact copy.
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
