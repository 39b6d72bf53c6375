// What crosses between a WorkerEngine and its worker, and back again unchanged: load options and
// sources (no functions; URLs made absolute against the page, whose base the worker lacks), errors
// as the caller would have caught them without a worker, and forward()'s outputs packed into one
// transferable Float32Array. Calls cross as the model encoded them (engine/model-engine.ts).
import { LayaError, isLayaErrorCode } from '../errors.js';
import type { LoadOptions } from '../options.js';
import type { ForwardResult } from '../request.js';
import type { CheckpointSource } from '../sources/checkpoint-source.js';
import type { CrossingError, PackedForward, WorkerLoadOptions } from './protocol.js';

/** An error caught in the worker, as it crosses (LayaError fields kept). */
export function crossingError(error: unknown): CrossingError {
  if (error instanceof LayaError) {
    // An internal error is a fault: where it happened (a trap's own stack, its cause) goes along.
    const fault = error.cause instanceof Error ? error.cause : error;
    return {
      name: 'LayaError', code: error.code, message: error.message,
      ...(error.file === undefined ? {} : { file: error.file }),
      ...(error.url === undefined ? {} : { url: error.url }),
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.code === 'internal' && typeof fault.stack === 'string' ? { stack: fault.stack } : {}),
    };
  }
  if (error instanceof Error) {
    return { name: error.name, message: error.message, ...(typeof error.stack === 'string' ? { stack: error.stack } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** The error the worker sent, as the caller would have caught it without a worker. */
export function rebuildError(error: CrossingError): Error {
  if (error.name === 'AbortError') return new DOMException(error.message, 'AbortError');
  const rebuilt = error.name === 'LayaError' && isLayaErrorCode(error.code)
    ? new LayaError(error.code, error.message, {
      ...(error.file === undefined ? {} : { file: error.file }),
      ...(error.url === undefined ? {} : { url: error.url }),
      ...(error.status === undefined ? {} : { status: error.status }),
    })
    : new LayaError('internal', `the laya-wasm worker failed: ${error.name}: ${error.message}`);
  // The page's own stack says only where the reply arrived; where the worker failed is the lead.
  if (error.stack !== undefined) rebuilt.stack = `${rebuilt.stack ?? String(rebuilt)}\n  in the worker at:\n${error.stack}`;
  return rebuilt;
}

/** The inverse of packForward. */
export function unpackForward(packed: PackedForward): ForwardResult {
  let at = 0;
  const take = (n: number): number[] => Array.from(packed.floats.subarray(at, (at += n)));
  const expected = packed.logits.map((n, i) => ({ logits: take(n), act: take(packed.act[i] as number) }));
  const embedExpected = packed.pooled.map((n) => ({ pooled: take(n) }));
  return { expected, embed_expected: embedExpected };
}

/** A source the worker reads the same: URLs made absolute against this page (the worker's base differs). */
export function crossingSource(source: CheckpointSource): CheckpointSource {
  if (typeof source !== 'object' || source === null) return source;
  const s = source as { url?: unknown; hubUrl?: unknown };
  const out: Record<string, unknown> = { ...source };
  if (s.url instanceof URL || typeof s.url === 'string') out['url'] = absolute(s.url);
  if (typeof s.hubUrl === 'string') out['hubUrl'] = absolute(s.hubUrl);
  return out as unknown as CheckpointSource;
}

function absolute(url: string | URL): string {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  try {
    return new URL(String(url), base).href;
  } catch {
    return String(url);  // the worker's loader names it in its error
  }
}

/**
 * The load options the worker gets: every option but the callbacks and the signal (which stay on
 * this thread), URLs made absolute against this page. Another function cannot cross, so it is an error.
 */
export function crossingLoadOptions(options: LoadOptions): WorkerLoadOptions {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === 'onProgress' || key === 'onWarning' || key === 'signal' || key === 'worker' || value === undefined) continue;
    if (key === 'wasm') continue;
    if (typeof value === 'function') refuseFunction(key);
    kept[key] = value;
  }
  const wasm: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options.wasm ?? {})) {
    if (value === undefined) continue;
    if (typeof value === 'function') refuseFunction(`wasm.${key}`);
    wasm[key] = typeof value === 'string' || value instanceof URL ? absolute(value) : value;
  }
  return { ...kept, wasm } as WorkerLoadOptions;
}

function refuseFunction(name: string): never {
  throw new LayaError('invalid_request',
    `load: options.${name} is a function, which cannot cross into the worker that options.worker starts; ` +
    'leave it out, or load without options.worker');
}

/** forward()'s lists end to end in one Float32Array: every value was an f32, so nothing rounds. */
export function packForward(result: { expected: Array<{ logits: number[]; act: number[] }>; embed_expected: Array<{ pooled: number[] }> }): PackedForward {
  const lists = [...result.expected.flatMap((e) => [e.logits, e.act]), ...result.embed_expected.map((e) => e.pooled)];
  const floats = new Float32Array(lists.reduce((n, list) => n + list.length, 0));
  let at = 0;
  for (const list of lists) {
    floats.set(list, at);
    at += list.length;
  }
  return {
    floats,
    logits: result.expected.map((e) => e.logits.length),
    act: result.expected.map((e) => e.act.length),
    pooled: result.embed_expected.map((e) => e.pooled.length),
  };
}
