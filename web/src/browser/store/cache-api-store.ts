// The weight store on the Cache API. A file is written with one cache.put whose body is a stream
// fed chunk by chunk from the download (bounded by kStoreBoundBytes through the stream's queue),
// so the download never waits for the disk beyond that bound. cache.put commits the entry only
// when the body ends; the record (size, ETag, Last-Modified) travels in the entry's headers and
// find() checks the stored body's length against it, by one of two reads (CacheApiRead), chosen per
// engine (choose-store.ts).
import { kStoreBoundBytes, type StoreKind, type StoreWriter, type StoredFile, type StoredRecord, type WeightStore } from '../../store/weight-store.js';

/** The part of the Cache API used here (window.caches.open(name) gives one). */
export interface CacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
}

const kSize = 'x-laya-size';
const kEtag = 'x-laya-etag';
const kLastModified = 'x-laya-last-modified';

/**
 * How a stored body is read. 'blob': response.blob(), a handle on the entry whose size is the
 * stored length, then read in slices (Chromium, Firefox: no read until the slices). 'body': the
 * body stream read to its end and counted first (WebKit: it hands a stored body over as one chunk,
 * far sooner than response.blob() and its slices; bench:page-load, docs/performance.md).
 */
export type CacheApiRead = 'blob' | 'body';

export class CacheApiStore implements WeightStore {
  readonly kind: StoreKind = 'cache-api';
  readonly where = 'the Cache API';
  readonly keeper = 'the browser';

  constructor(private readonly cache: CacheLike, private readonly read: CacheApiRead = 'blob') {}

  async find(url: string): Promise<StoredFile | undefined> {
    const response = await this.cache.match(url);
    if (response === undefined) return undefined;
    const size = Number(response.headers.get(kSize) ?? NaN);
    if (!Number.isSafeInteger(size) || size < 0) {
      // Written before records existed, or by someone else: not known to be complete.
      await response.body?.cancel().catch(() => undefined);
      await this.remove(url);
      return undefined;
    }
    const bytes = this.read === 'body' ? await wholeBody(response) : await response.blob();
    const stored = Array.isArray(bytes) ? bytes.reduce((sum, chunk) => sum + chunk.byteLength, 0) : bytes.size;
    if (stored !== size) {
      await this.remove(url);
      return undefined;
    }
    const etag = response.headers.get(kEtag) ?? undefined;
    const lastModified = response.headers.get(kLastModified) ?? undefined;
    return { record: { size, etag, lastModified }, bytes };
  }

  async begin(url: string, record: StoredRecord): Promise<StoreWriter> {
    const headers = new Headers({ 'content-type': 'application/octet-stream', 'content-length': String(record.size), [kSize]: String(record.size) });
    if (record.etag !== undefined) headers.set(kEtag, record.etag);
    if (record.lastModified !== undefined) headers.set(kLastModified, record.lastModified);
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let wake: (() => void) | undefined;
    // Set when the Cache API stops reading the body (its put failed: quota, I/O) or we abort.
    let stopped = false;
    const stop = (): void => {
      stopped = true;
      wake?.();
    };
    const body = new ReadableStream<Uint8Array>({
      start(c) { controller = c; },
      pull() { wake?.(); wake = undefined; },
      cancel() { stop(); },
    }, new ByteLengthQueuingStrategy({ highWaterMark: kStoreBoundBytes }));
    let failure: unknown;
    const put = this.cache.put(url, new Response(body, { headers })).catch((error: unknown) => {
      failure = error;
      stop();
    });
    /** Why the put stopped: its own error once it has settled. */
    const reason = async (): Promise<unknown> => {
      await put;
      return failure ?? new Error('the Cache API stopped reading the body');
    };
    const cache = this.cache;
    return {
      async write(chunk) {
        if (stopped) throw await reason();
        controller.enqueue(chunk);
        while (!stopped && (controller.desiredSize ?? 0) <= 0) await new Promise<void>((resolve) => { wake = resolve; });
        if (stopped) throw await reason();
      },
      async commit() {
        if (stopped) throw await reason();
        controller.close();
        await put;
        if (failure !== undefined) throw failure;
      },
      async abort() {
        if (!stopped) {
          stop();
          controller.error(new Error('aborted'));
        }
        await put;
        await cache.delete(url).catch(() => false);
      },
    };
  }

  async remove(url: string): Promise<void> {
    await this.cache.delete(url).catch(() => false);
  }
}

/** The response's body read to its end, as the engine's chunks. */
async function wholeBody(response: Response): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = response.body?.getReader();
  if (reader === undefined) return chunks;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}
