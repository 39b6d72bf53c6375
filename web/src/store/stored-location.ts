// Downloaded checkpoint files kept in a WeightStore (weight-store.ts), in a page or in Node: the
// one rule for using and replacing them. One pass on a first load: the download's bytes go on to
// wasm memory (or the GPU buffers) as they arrive while the same bytes are written to the store,
// gathered in kStoreWriteBytes pieces, of which the store holds at most kStoreBoundBytes in flight
// before the download waits for it. The entry is committed only when the body ended with every
// byte, and after the load has it: the commit (the last writes, a flush to disk, the record) runs
// behind the load, which resolves without waiting for it; storing() says when every commit has
// ended (LayaPipeline.stored). Any failure or abort before the end removes the entry. A stored
// file is used only when complete (the store checks its length against the record) and, when its
// validators allow, still the server's version (a conditional GET: 304 serves the store, a new
// version removes the old one and downloads it again, a server that cannot be reached serves the
// store with a warning). Storage faults (quota, refusal, a full disk) never fail a load: it goes
// on from the network unstored and onWarning says why, with the bytes needed and available.
import { describeError } from '../errors.js';
import type { CheckpointFileName, CheckpointLocation, OpenOptions, OpenedFile } from '../sources/checkpoint-source.js';
import type { FetchedFile, HttpLocation } from '../sources/http-location.js';
import { BlobByteReader, kSliceBytes } from '../stream/blob-byte-reader.js';
import { StreamByteReader } from '../stream/stream-byte-reader.js';
import { coalescing, validatorsOf, type StoreWriter, type StoredFile, type WeightStore } from './weight-store.js';

/** How much storage there is (navigator.storage's estimate(), where the engine has it). */
export type EstimateFunction = () => Promise<{ usage?: number; quota?: number }>;

export interface StoredLocationOptions {
  onWarning: (message: string) => void;
  estimate?: EstimateFunction | undefined;
}

export class StoredLocation implements CheckpointLocation {
  readonly description: string;
  /** The commits running behind the load, one per file stored. */
  private readonly commits: Array<Promise<void>> = [];

  constructor(private readonly network: HttpLocation, private readonly store: WeightStore,
              private readonly options: StoredLocationOptions) {
    this.description = `${network.description} (stored in ${store.where})`;
  }

  async open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile> {
    const url = this.network.urls.fileUrl(file);
    // A load right after another in this context finds what that one is still committing.
    await kCommitting.get(url);
    const stored = await this.store.find(url).catch((error: unknown) => {
      this.options.onWarning(`laya-wasm: ${file}: ${this.store.where} could not be read (${describeError(error)}); downloading it`);
      return undefined;
    });
    let fetched: FetchedFile;
    if (stored === undefined) {
      fetched = await this.network.fetchFile(file, options);
    } else {
      const { etag, lastModified } = stored.record;
      // Without validators the server cannot say whether the file changed: the stored copy serves.
      const answer = etag === undefined && lastModified === undefined ? 'unchanged' : await this.network.revalidate(file, stored.record, options);
      if (answer === 'unchanged') return this.fromStore(file, url, stored, options);
      if ('unreachable' in answer) {
        this.options.onWarning(`laya-wasm: ${file}: could not ask ${url} whether it changed (${answer.unreachable}); using the stored copy`);
        return this.fromStore(file, url, stored, options);
      }
      // A new version: the old one is never read again, whatever happens to this download.
      await this.store.remove(url);
      fetched = answer;
    }
    options.onSize?.(fetched.size);
    let body = fetched.body;
    if (fetched.size === undefined && this.store.beginUnsized === undefined) {
      this.options.onWarning(`laya-wasm: ${file}: ${fetched.url} sent no size, so it is loaded without being stored`);
    } else {
      // The store's file is opened while the first bytes come in: nothing waits for it until a
      // whole piece (kStoreWriteBytes) is ready to be written, or until the commit.
      const writer = coalescing(whenOpened(this.startWriting(file, fetched)));
      body = tapped(fetched, writer, file, this.store.keeper, this.options, (commit) => this.committing(url, commit));
    }
    return {
      file,
      location: fetched.url,
      size: fetched.size,
      reader: new StreamByteReader(body, {
        file, location: fetched.url, size: fetched.size, failureCode: 'network', lentChunks: fetched.lentChunks,
        signal: options.signal, onBytes: options.onBytes,
      }),
    };
  }

  /** Settles once every file this location began storing is committed or given up (a warning says why). */
  async storing(): Promise<void> {
    // A commit never rejects: its failure is a warning (tapped()).
    for (let seen = 0; seen < this.commits.length; ++seen) await this.commits[seen];
  }

  private committing(url: string, commit: Promise<void>): void {
    this.commits.push(commit);
    kCommitting.set(url, commit);
    void commit.then(() => {
      if (kCommitting.get(url) === commit) kCommitting.delete(url);
    });
  }

  private fromStore(file: CheckpointFileName, url: string, stored: StoredFile, options: OpenOptions): OpenedFile {
    options.onSize?.(stored.record.size);
    const readerOptions = { file, location: `${url} (stored)`, signal: options.signal, onBytes: options.onBytes };
    const { bytes } = stored;
    return {
      file,
      location: url,
      size: stored.record.size,
      fromStore: true,
      reader: bytes instanceof Blob ? new BlobByteReader(bytes, readerOptions)
        : Array.isArray(bytes) ? new StreamByteReader(piecesOf(bytes), { ...readerOptions, size: stored.record.size, failureCode: 'invalid_checkpoint' })
          : bytes.openReader(readerOptions),
    };
  }

  /** A writer for the download, or null (with a warning) when it cannot or should not be stored. Never rejects. */
  private async startWriting(file: CheckpointFileName, fetched: FetchedFile): Promise<StoreWriter | null> {
    const { size } = fetched;
    const { keeper } = this.store;
    const available = size === undefined ? undefined : await estimateAvailable(this.options.estimate);
    if (available !== undefined && size !== undefined && available < size) {
      this.options.onWarning(notStored(file, size, `${keeper} gives this site ${available} bytes of storage`));
      return null;
    }
    const validators = validatorsOf(fetched.headers);
    try {
      if (size !== undefined) return await this.store.begin(fetched.url, { size, ...validators });
      // open() asks for a writer without a size only where the store has beginUnsized.
      return await this.store.beginUnsized?.(fetched.url, validators) ?? null;
    } catch (error) {
      this.options.onWarning(notStored(file, size, `${keeper} refused storage (${describeStorageError(error)})`));
      return null;
    }
  }
}

/** What a writer whose store turned out not to store the file throws (startWriting already said why). */
const kNotStored = new Error('laya-wasm: the file is not being stored');

/** The writer `opening` resolves to, usable at once: its calls wait for it; null makes them throw kNotStored. */
function whenOpened(opening: Promise<StoreWriter | null>): StoreWriter {
  let opened: StoreWriter | null = null;
  void opening.then((writer) => { opened = writer; });
  const writer = async (): Promise<StoreWriter> => {
    const w = await opening;
    if (w === null) throw kNotStored;
    return w;
  };
  return {
    spareBuffer: (bytes) => opened?.spareBuffer?.(bytes),
    write: async (chunk) => (await writer()).write(chunk),
    commit: async () => (await writer()).commit(),
    abort: async () => { await (await opening)?.abort(); },
  };
}

/** The commits running behind loads in this context, by URL (they never reject). */
const kCommitting = new Map<string, Promise<void>>();

/** "QuotaExceededError: ..." for a DOMException (its name is what tells the fault), else the message. */
export function describeStorageError(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== 'Error' && !describeError(error).startsWith(name) ? `${name}: ${describeError(error)}` : describeError(error);
}

function notStored(file: string, size: number | undefined, why: string): string {
  return `laya-wasm: ${file}${size === undefined ? '' : ` (${size} bytes)`} is loaded from the network without being stored: ${why}`;
}

/**
 * The download's body, every chunk also handed to `writer`. When the body ends with its size in
 * bytes (any, where the server sent none) the stream ends at once and the writer's commit starts
 * behind it, handed to `committing`; a body that ends short, fails, is cancelled or aborted removes
 * the entry. A store fault (quota, a full disk) stops the storing, not the load.
 */
function tapped(fetched: FetchedFile, writer: StoreWriter, file: string, keeper: string, { onWarning, estimate }: StoredLocationOptions,
                committing: (commit: Promise<void>) => void): ReadableStream<Uint8Array> {
  const reader = fetched.body.getReader();
  const { size } = fetched;
  let active: StoreWriter | null = writer;
  let written = 0;
  // Takes the entry away from the load (nothing more is written to it) and removes it.
  const drop = async (w: StoreWriter | null = active): Promise<void> => {
    active = null;
    await w?.abort().catch(() => undefined);
  };
  const fault = async (error: unknown, w: StoreWriter | null = active): Promise<void> => {
    await drop(w);
    if (error === kNotStored) return;
    const available = await estimateAvailable(estimate);
    onWarning(notStored(file, size, `storing it failed (${describeStorageError(error)})` +
      (available === undefined ? `; ${keeper} does not say how much storage is available` : `; ${available} bytes of storage are available`)));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        await drop();
        throw error;
      }
      if (result.done) {
        const w = active;
        if (size !== undefined && written !== size) await drop();
        else if (w !== null) committing(w.commit().catch((error: unknown) => fault(error, w)));
        active = null;
        controller.close();
        return;
      }
      const chunk = result.value;
      if (active !== null) {
        try {
          await active.write(chunk);
          written += chunk.byteLength;
        } catch (error) {
          await fault(error);
        }
      }
      controller.enqueue(chunk);
    },
    async cancel(reason) {
      await drop();
      await reader.cancel(reason).catch(() => undefined);
    },
  }, { highWaterMark: 0 });
}

/**
 * Chunks already in memory as a stream of at most kSliceBytes pieces (subarrays, no copy), so the
 * load's progress and abort checks come per piece; each chunk leaves the array once handed on.
 */
function piecesOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[0];
      if (chunk === undefined) {
        controller.close();
        return;
      }
      const end = Math.min(chunk.byteLength, at + kSliceBytes);
      controller.enqueue(chunk.subarray(at, end));
      at = end;
      if (at === chunk.byteLength) {
        chunks.shift();
        at = 0;
      }
    },
  }, { highWaterMark: 0 });
}

async function estimateAvailable(estimate: EstimateFunction | undefined): Promise<number | undefined> {
  const given = await estimate?.().catch(() => undefined);
  return given?.quota === undefined ? undefined : Math.max(0, given.quota - (given.usage ?? 0));
}
