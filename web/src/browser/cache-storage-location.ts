// The browser download cache, on the Cache API. A missing file is downloaded straight into the
// cache (cache.put consumes the stream, counting bytes for progress; nothing is held in JS), then
// read back from the cache like a hit. This costs one extra pass over local storage on the first
// load, but unlike tee() it never queues chunks in JS when one branch is slower than the other.
import { LayaError, abortError, describeError, isAbortError } from '../errors.js';
import type { CheckpointFileName, CheckpointLocation, OpenOptions, OpenedFile } from '../sources/checkpoint-source.js';
import { contentLength, type HttpLocation } from '../sources/http-location.js';
import { StreamByteReader } from '../stream/stream-byte-reader.js';

/** The part of the Cache API used here (window.caches.open(name) gives one). */
export interface CacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
}

export const kDefaultCacheName = 'laya-wasm-v1';

export class CacheStorageLocation implements CheckpointLocation {
  readonly description: string;

  constructor(private readonly network: HttpLocation, private readonly cache: CacheLike) {
    this.description = `${network.description} (Cache API)`;
  }

  async open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile> {
    const url = this.network.urls.fileUrl(file);
    const hit = await this.usable(url, options);
    if (hit !== undefined) return this.fromCache(file, url, hit, options, true);
    await this.download(file, options);
    const stored = await this.usable(url, options);
    if (stored === undefined) {
      throw new LayaError('network', `${file}: ${url} was downloaded but the browser cache did not keep it`, { file, url });
    }
    return this.fromCache(file, url, stored, options, false);
  }

  /** A cached response that can be used: for the weights, one whose size is recorded. */
  private async usable(url: string, options: OpenOptions): Promise<Response | undefined> {
    const response = await this.cache.match(url);
    if (response === undefined || response.body === null) return undefined;
    if (options.needSize && contentLength(response.headers) === undefined) {
      await response.body.cancel().catch(() => undefined);
      return undefined;
    }
    return response;
  }

  private fromCache(file: CheckpointFileName, url: string, response: Response, options: OpenOptions,
                    countBytes: boolean): OpenedFile {
    const size = contentLength(response.headers);
    if (countBytes) options.onSize?.(size);
    return {
      file,
      location: url,
      size,
      reader: new StreamByteReader(response.body as ReadableStream<Uint8Array>, {
        file, location: `${url} (cached)`, size, failureCode: 'invalid_checkpoint',
        signal: options.signal, onBytes: countBytes ? options.onBytes : undefined,
      }),
    };
  }

  private async download(file: CheckpointFileName, options: OpenOptions): Promise<void> {
    const fetched = await this.network.fetchFile(file, options);
    const { url, size } = fetched;
    options.onSize?.(size);
    let failure: unknown;
    let count = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (options.signal?.aborted) throw (failure = abortError(options.signal));
        count += chunk.byteLength;
        options.onBytes?.(chunk.byteLength);
        controller.enqueue(chunk);
      },
      flush() {
        // A body that ends early must not be stored as if it were the file.
        if (size !== undefined && count !== size) {
          throw (failure = new LayaError('network', `${file}: ${url} ended after ${count} of ${size} bytes (truncated)`, { file, url }));
        }
      },
    });
    const headers = new Headers({ 'content-type': fetched.headers.get('content-type') ?? 'application/octet-stream' });
    if (size !== undefined) headers.set('content-length', String(size));
    try {
      await this.cache.put(url, new Response(fetched.body.pipeThrough(counter), { headers }));
    } catch (error) {
      await this.cache.delete(url).catch(() => false);
      if (options.signal?.aborted || isAbortError(error) || isAbortError(failure)) throw abortError(options.signal);
      if (failure instanceof LayaError) throw failure;
      if (error instanceof LayaError) throw error;
      throw new LayaError('network', `${file}: downloading ${url} into the browser cache failed after ${count} bytes: ${describeError(error)}`,
        { file, url, cause: error });
    }
  }
}
