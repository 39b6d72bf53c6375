// A download body that survives a dropped connection (RFC 9110 14, "Range Requests"): when the body
// of a file of known size errors or ends early after N bytes, the file is asked for again with
// `Range: bytes=N-` (and `If-Range` with the first answer's validator, so a file that changed is
// never spliced) and the 206 body continues the stream. Whoever reads it sees one unbroken stream
// of the file's bytes, so they keep landing at the right place in wasm memory and progress never
// counts a byte twice. An answer that cannot be continued is a `network` error naming the file, the
// byte offset and why.
import { LayaError, abortError, describeError, isAbortError } from '../errors.js';
import { givingReader, lendingReader, type ChunkReader } from '../stream/lending-reader.js';
import { contentEncoding, describeStatus } from './http-response.js';

/** How a dropped download is resumed. */
export interface ResumePolicy {
  /** Resume requests allowed for one file, in total. 0: a drop fails the load at once. */
  retries: number;
  /** Milliseconds to wait before resume attempt `attempt` (1, 2, ...). */
  backoffMs: (attempt: number) => number;
}

export const kDefaultRetries = 3;

/** 250 ms, then 500, 1000, ... capped at 4 s: long enough for a blip to pass, short beside a download. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(4000, 250 * 2 ** (attempt - 1));
}

export interface ResumableBodyOptions {
  file: string;
  url: string;
  /** The file's size from the first answer (or a Range probe). */
  size: number;
  /** The first answer (2xx, identity encoded, body unread). */
  first: Response;
  /** GETs the file again with these extra headers (a plain fetch: it rejects as fetch does). */
  request: (headers: Record<string, string>, signal: AbortSignal) => Promise<Response>;
  policy: ResumePolicy;
  signal?: AbortSignal | undefined;
}

/**
 * A stream of the whole file that resumes the download where it dropped (see the file comment).
 * Its chunks are lent (lending-reader.ts) where the engine's bodies are byte streams: `lentChunks`.
 */
export function resumableBody(options: ResumableBodyOptions): { body: ReadableStream<Uint8Array>; lentChunks: boolean } {
  const { file, url, size, policy, signal } = options;
  const firstBody = options.first.body;
  if (firstBody === null) throw new Error('resumableBody: the first answer has no body');
  const validators = validatorsOf(options.first.headers);
  // Stops a wait or a resume request: the caller's abort, or the stream cancelled (the load failed
  // elsewhere, or the reader was closed).
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const release = (): void => signal?.removeEventListener('abort', onAbort);
  let reader: ChunkReader = lendingReader(firstBody);
  // A resumed body is read the same way, so that the chunks are lent throughout or never.
  const lentChunks = reader.lends;
  const readerOf = (body: ReadableStream<Uint8Array>): ChunkReader => (lentChunks ? lendingReader(body) : givingReader(body));
  let received = 0;
  let attempts = 0;

  /** A reader positioned at byte `received`, or the error that ends the load. */
  async function resume(drop: string, cause: unknown): Promise<ChunkReader> {
    const at = received;
    await reader.cancel().catch(() => undefined);
    const fail = (reason: string, status?: number): LayaError =>
      new LayaError('network', `${file}: ${drop}; could not resume the download at byte ${at}: ${reason}`,
        { file, url, ...(status === undefined ? {} : { status }), cause });
    let last = '';
    while (attempts < policy.retries) {
      attempts += 1;
      const outcome = await attempt(at, policy.backoffMs(attempts));
      if (outcome.kind === 'resumed') return outcome.reader;
      if (outcome.final) throw fail(outcome.reason, outcome.status);
      last = outcome.reason;
    }
    const allowed = policy.retries === 1 ? 'the 1 resume attempt' : `the ${policy.retries} resume attempts`;
    throw fail(`${allowed} allowed (options.retries) are used up${last === '' ? '' : `; the last failed: ${last}`}`);
  }

  /** One resume request after `delay` ms. A refusal is final when asking again cannot help. */
  async function attempt(at: number, delay: number): Promise<Attempt> {
    try {
      await wait(delay, stop.signal);
      const headers: Record<string, string> = { Range: `bytes=${at}-` };
      if (validators.ifRange !== undefined) headers['If-Range'] = validators.ifRange;
      const response = await options.request(headers, stop.signal);
      const refusal = refusalOf(response, at, size, validators);
      if (refusal === undefined && response.body !== null) return { kind: 'resumed', reader: readerOf(response.body) };
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'refused', status: response.status, ...(refusal ?? { final: false, reason: 'the 206 answer has no body' }) };
    } catch (error) {
      if (signal?.aborted || stop.signal.aborted || isAbortError(error)) throw abortError(signal);
      return { kind: 'refused', final: false, reason: `the request failed: ${describeError(error)}` };
    }
  }

  const ofSize = ` of ${size} bytes`;
  /** The next chunk of the file, or null at its end. */
  async function next(): Promise<Uint8Array | null> {
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        if (signal?.aborted || isAbortError(error)) throw abortError(signal);
        if (received >= size) throw error;
        reader = await resume(`reading ${url} failed after ${received}${ofSize}: ${describeError(error)}`, error);
        continue;
      }
      if (result.done) {
        if (received >= size) return null;
        reader = await resume(`${url} ended after ${received}${ofSize} (truncated)`, undefined);
        continue;
      }
      // Bytes beyond `size` pass on: the reader downstream reports a file longer than expected.
      received += result.value.byteLength;
      return result.value;
    }
  }

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Uint8Array | null;
      try {
        chunk = await next();
      } catch (error) {
        release();
        throw error;
      }
      if (chunk !== null) {
        controller.enqueue(chunk);
        return;
      }
      release();
      controller.close();
    },
    async cancel(reason) {
      stop.abort(reason);
      release();
      await reader.cancel(reason).catch(() => undefined);
    },
  // Pulled only when read: a lent chunk stays valid until its reader asks for the next.
  }, { highWaterMark: 0 });
  return { body, lentChunks };
}

type Attempt =
  | { kind: 'resumed'; reader: ChunkReader }
  | { kind: 'refused'; final: boolean; reason: string; status?: number };

/** Why a resume answer cannot continue the file at byte `at`, or undefined when it can. */
function refusalOf(response: Response, at: number, size: number, first: Validators): { final: boolean; reason: string } | undefined {
  const status = describeStatus(response);
  if (response.status === 200) {
    return { final: true, reason: first.ifRange === undefined
      ? `the server ignored the Range request (${status} with the whole file)`
      : `the server sent the whole file (${status}): it ignores Range requests, or the file changed since the download began` };
  }
  if (response.status === 412) return { final: true, reason: `the file changed since the download began (${status})` };
  if (response.status !== 206) {
    // A busy or failing server may answer the next attempt.
    const transient = response.status === 408 || response.status === 429 || response.status >= 500;
    return { final: !transient, reason: `${status} to the Range request` };
  }
  const shown = response.headers.get('content-range');
  const range = /^\s*bytes\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(shown ?? '');
  const [start, end, total] = range === null ? [NaN, NaN, NaN] : [Number(range[1]), Number(range[2]), Number(range[3])];
  if (start !== at || total !== size || !(end >= start && end < size)) {
    return { final: true, reason: `the 206 answer's Content-Range is ${shown === null ? 'missing' : JSON.stringify(shown)}, ` +
      `expected bytes ${at}-${size - 1}/${size}` };
  }
  const encoding = contentEncoding(response.headers);
  if (encoding !== undefined) {
    return { final: true, reason: `the 206 answer is content-encoded (${encoding}), so its bytes are not the file's` };
  }
  const changed = changedValidator(first, validatorsOf(response.headers));
  if (changed !== undefined) return { final: true, reason: `the file changed since the download began (${changed})` };
  return undefined;
}

interface Validators {
  etag: string | undefined;
  lastModified: string | undefined;
  /** What If-Range may carry: a strong ETag, else a strong Last-Modified date (RFC 9110 13.1.5). */
  ifRange: string | undefined;
}

function validatorsOf(headers: Headers): Validators {
  const etag = headers.get('etag')?.trim() || undefined;
  const lastModified = headers.get('last-modified')?.trim() || undefined;
  let ifRange: string | undefined;
  if (etag !== undefined) {
    if (!etag.startsWith('W/')) ifRange = etag;
  } else if (lastModified !== undefined) {
    // A date is a strong validator only when the file was last changed a second or more before the answer.
    const modified = Date.parse(lastModified);
    const date = Date.parse(headers.get('date') ?? '');
    if (Number.isFinite(modified) && Number.isFinite(date) && modified <= date - 1000) ifRange = lastModified;
  }
  return { etag, lastModified, ifRange };
}

/** How a resumed answer's validators show another version of the file, if they do. */
function changedValidator(first: Validators, next: Validators): string | undefined {
  if (first.etag !== undefined && next.etag !== undefined && first.etag !== next.etag) {
    return `ETag ${first.etag} became ${next.etag}`;
  }
  if (first.lastModified !== undefined && next.lastModified !== undefined && first.lastModified !== next.lastModified) {
    return `Last-Modified ${first.lastModified} became ${next.lastModified}`;
  }
  return undefined;
}

/** Resolves after `ms`; rejects with an AbortError as soon as `stop` aborts. */
function wait(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (stop.aborted) {
      reject(abortError(stop));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(stop));
    };
    const timer = setTimeout(() => {
      stop.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    stop.addEventListener('abort', onAbort, { once: true });
  });
}
