// Checkpoint files over HTTP(S) with fetch: the size from Content-Length (when the body is not
// content-encoded, where the header counts compressed bytes), or, when a server omits it for the
// weights, from a one-byte Range probe's Content-Range; the body read as a stream, which resumes
// with Range requests when the connection drops (resumable-body.ts) if the size is known.
import { LayaError, abortError, describeError, isAbortError } from '../errors.js';
import { StreamByteReader } from '../stream/stream-byte-reader.js';
import type { CheckpointFileName, CheckpointLocation, OpenOptions, OpenedFile } from './checkpoint-source.js';
import type { FileUrls } from './file-urls.js';
import { contentEncoding, describeStatus } from './http-response.js';
import { defaultBackoffMs, kDefaultRetries, resumableBody, type ResumePolicy } from './resumable-body.js';

export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

/** A fetched file: the response (status checked) and what its headers say about its size. */
export interface FetchedFile {
  url: string;
  body: ReadableStream<Uint8Array>;
  /** Each chunk of `body` is valid only until the next is read (lending-reader.ts). */
  lentChunks: boolean;
  size: number | undefined;
  headers: Headers;
}

export class HttpLocation implements CheckpointLocation {
  readonly description: string;

  constructor(readonly urls: FileUrls, private readonly fetchFn: FetchFunction,
              private readonly resume: ResumePolicy = { retries: kDefaultRetries, backoffMs: defaultBackoffMs }) {
    this.description = urls.description;
  }

  async open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile> {
    const fetched = await this.fetchFile(file, options);
    return {
      file,
      location: fetched.url,
      size: fetched.size,
      reader: new StreamByteReader(fetched.body, {
        file, location: fetched.url, size: fetched.size, failureCode: 'network', lentChunks: fetched.lentChunks,
        signal: options.signal, onBytes: options.onBytes,
      }),
    };
  }

  /** GETs one file; HTTP errors become LayaErrors naming the file, URL and status. */
  async fetchFile(file: CheckpointFileName, options: OpenOptions): Promise<FetchedFile> {
    const url = this.urls.fileUrl(file);
    return this.accept(file, url, await this.request(file, url, options.signal), options);
  }

  /**
   * Asks whether a stored copy is still the file (If-None-Match / If-Modified-Since with the
   * validators it was downloaded with): 304 -> 'unchanged'; a new version -> its answer, to be
   * downloaded; no answer at all (offline) -> 'unreachable' with why, so the stored copy may serve.
   */
  async revalidate(file: CheckpointFileName, validators: { etag?: string | undefined; lastModified?: string | undefined },
                   options: OpenOptions): Promise<'unchanged' | { unreachable: string } | FetchedFile> {
    const url = this.urls.fileUrl(file);
    const headers: Record<string, string> = {};
    if (validators.etag !== undefined) headers['If-None-Match'] = validators.etag;
    else if (validators.lastModified !== undefined) headers['If-Modified-Since'] = validators.lastModified;
    let response: Response;
    try {
      response = await this.request(file, url, options.signal, headers);
    } catch (error) {
      if (options.signal?.aborted || isAbortError(error)) throw error;
      return { unreachable: describeError(error) };
    }
    if (response.status === 304) {
      await response.body?.cancel().catch(() => undefined);
      return 'unchanged';
    }
    return this.accept(file, url, response, options);
  }

  /** A GET's answer as a FetchedFile; HTTP errors become LayaErrors naming the file, URL and status. */
  private async accept(file: CheckpointFileName, url: string, response: Response, options: OpenOptions): Promise<FetchedFile> {
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const status = describeStatus(response);
      if (response.status === 404) {
        throw new LayaError('invalid_checkpoint', `${file} not found: ${status} from ${url}`, { file, url, status: response.status });
      }
      throw new LayaError('network', `${file}: ${status} from ${url}`, { file, url, status: response.status });
    }
    if (response.body === null) {
      throw new LayaError('network', `${file}: ${url} answered with no body`, { file, url });
    }
    let size = contentLength(response.headers);
    if (size === undefined && options.needSize) {
      size = await this.probeSize(file, url, options.signal);
      if (size === undefined) {
        await response.body.cancel().catch(() => undefined);
        throw new LayaError('network',
          `${file}: ${url} sent no usable Content-Length and no Content-Range for a Range request; ` +
          'the size is needed to plan wasm memory before streaming', { file, url });
      }
    }
    // Without a size, or with a compressed body (ranges would count compressed bytes), a dropped
    // download cannot be resumed: it fails as it is.
    const { body, lentChunks } = size !== undefined && response.status === 200 && contentEncoding(response.headers) === undefined && this.resume.retries > 0
      ? resumableBody({
        file, url, size, first: response, policy: this.resume, signal: options.signal,
        request: (headers, signal) => this.fetchFn(url, { signal, headers }),
      })
      : { body: response.body, lentChunks: false };
    return { url, body, lentChunks, size, headers: response.headers };
  }

  private async request(file: string, url: string, signal: AbortSignal | undefined,
                        headers?: Record<string, string>): Promise<Response> {
    try {
      return await this.fetchFn(url, { signal: signal ?? null, ...(headers ? { headers } : {}) });
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) throw abortError(signal);
      throw new LayaError('network', `${file}: could not fetch ${url}: ${describeError(error)}`, { file, url, cause: error });
    }
  }

  /** The total size from a `Range: bytes=0-0` answer's Content-Range ("bytes 0-0/12345"). */
  private async probeSize(file: string, url: string, signal: AbortSignal | undefined): Promise<number | undefined> {
    const response = await this.request(file, url, signal, { Range: 'bytes=0-0' });
    await response.body?.cancel().catch(() => undefined);
    if (response.status !== 206) return undefined;
    const match = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
    return match?.[1] === undefined ? undefined : Number(match[1]);
  }
}

/** The body's size in bytes, if the headers say it (and it is not the compressed size). */
export function contentLength(headers: Headers): number | undefined {
  if (contentEncoding(headers) !== undefined) return undefined;
  const text = headers.get('content-length');
  if (text === null || !/^\s*\d+\s*$/.test(text)) return undefined;
  const size = Number(text);
  return Number.isSafeInteger(size) ? size : undefined;
}
