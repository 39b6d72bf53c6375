// The weight store on the Cache API. A file is written with one cache.put whose body is a stream
// fed chunk by chunk from the download (bounded by kStoreBoundBytes through the stream's queue),
// so the download never waits for the disk beyond that bound. cache.put commits the entry only
// when the body ends; the record (size, ETag, Last-Modified) travels in the entry's headers and
// find() checks the stored body's length against it.
import { kStoreBoundBytes, type StoreKind, type StoreWriter, type StoredFile, type StoredRecord, type WeightStore } from './weight-store.js';

/** The part of the Cache API used here (window.caches.open(name) gives one). */
export interface CacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
}

const kSize = 'x-laya-size';
const kEtag = 'x-laya-etag';
const kLastModified = 'x-laya-last-modified';

export class CacheApiStore implements WeightStore {
  readonly kind: StoreKind = 'cache-api';

  constructor(private readonly cache: CacheLike) {}

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
    // A blob of a cached body is backed by the stored entry (no read yet): its size is the stored length.
    const blob = await response.blob();
    if (blob.size !== size) {
      await this.remove(url);
      return undefined;
    }
    const etag = response.headers.get(kEtag) ?? undefined;
    const lastModified = response.headers.get(kLastModified) ?? undefined;
    return { record: { size, etag, lastModified }, blob };
  }

  async begin(url: string, record: StoredRecord): Promise<StoreWriter> {
    const headers = new Headers({ 'content-type': 'application/octet-stream', 'content-length': String(record.size), [kSize]: String(record.size) });
    if (record.etag !== undefined) headers.set(kEtag, record.etag);
    if (record.lastModified !== undefined) headers.set(kLastModified, record.lastModified);
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let wake: (() => void) | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(c) { controller = c; },
      pull() { wake?.(); wake = undefined; },
    }, new ByteLengthQueuingStrategy({ highWaterMark: kStoreBoundBytes }));
    let failure: unknown;
    let failed = false;
    const put = this.cache.put(url, new Response(body, { headers })).catch((error: unknown) => {
      failed = true;
      failure = error;
      wake?.();
    });
    const cache = this.cache;
    return {
      async write(chunk) {
        if (failed) throw failure;
        controller.enqueue(chunk);
        while (!failed && (controller.desiredSize ?? 0) <= 0) await new Promise<void>((resolve) => { wake = resolve; });
        if (failed) throw failure;
      },
      async commit() {
        if (!failed) controller.close();
        await put;
        if (failed) throw failure;
      },
      async abort() {
        if (!failed) {
          failed = true;
          failure = new Error('aborted');
          controller.error(failure);
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
