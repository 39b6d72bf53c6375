// Typed errors of the package. Every failure a caller can act on is a LayaError whose `code` says
// what kind of fault it is and whose message names the file, URL, tensor or field at fault;
// cancellation is the platform's AbortError (docs/architecture.md "Conventions").

/** What kind of fault a LayaError reports. */
export type LayaErrorCode =
  /**
   * A checkpoint file is missing, malformed, truncated, or does not match its config; or its weights
   * are not finite: a norm weight or bias holding NaN / Inf (refused at load), or a question whose
   * logits come out NaN / Inf in predict (the message names the question). Use another checkpoint.
   */
  | 'invalid_checkpoint'
  /** Well formed, but a model or feature this engine does not run. */
  | 'unsupported_model'
  /** A download failed: HTTP status, a dropped connection that could not be resumed, or a missing size. */
  | 'network'
  /** wasm memory could not hold the weights or a request. */
  | 'out_of_memory'
  /**
   * A predict / embed / forward call (or a load option, or a CLI argument) is malformed. Bad
   * requests carry upstream's messages.
   */
  | 'invalid_request'
  /** The model was disposed before this call. */
  | 'disposed'
  /**
   * A broken invariant: a bug in laya-wasm. A wasm trap (the engine faulting, docs/engine-faults.md)
   * is one too, and ends the model: that call and every later one reject, naming the trap; load it
   * again.
   */
  | 'internal';

const kCodes: ReadonlySet<string> = new Set<LayaErrorCode>([
  'invalid_checkpoint',
  'unsupported_model',
  'network',
  'out_of_memory',
  'invalid_request',
  'disposed',
  'internal',
]);

/** What a LayaError names besides its message. */
export interface LayaErrorDetails {
  /** The checkpoint file concerned, e.g. "model.safetensors". */
  file?: string;
  /** The URL concerned (HTTP sources). */
  url?: string;
  /** The HTTP status, when the server answered with an error. */
  status?: number;
  cause?: unknown;
}

/**
 * Every failure a caller can act on: `code` says what kind of fault it is, and the message names the
 * file, URL, tensor, field or question at fault. Cancellation is not a LayaError but the platform's
 * error named "AbortError".
 */
export class LayaError extends Error {
  override readonly name = 'LayaError';
  /** What kind of fault this is. */
  readonly code: LayaErrorCode;
  /** The checkpoint file concerned, when one is. */
  readonly file: string | undefined;
  /** The URL concerned, when one is. */
  readonly url: string | undefined;
  /** The HTTP status, when the server answered with an error. */
  readonly status: number | undefined;

  constructor(code: LayaErrorCode, message: string, details: LayaErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.file = details.file;
    this.url = details.url;
    this.status = details.status;
  }
}

export function isLayaErrorCode(code: unknown): code is LayaErrorCode {
  return typeof code === 'string' && kCodes.has(code);
}

/** The error a cancelled operation rejects with: always named "AbortError". */
export function abortError(signal: AbortSignal | undefined, what = 'load'): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const why = reason === undefined ? '' : `: ${reason instanceof Error ? reason.message : String(reason)}`;
  return new DOMException(`laya-wasm ${what} was aborted${why}`, 'AbortError');
}

export function throwIfAborted(signal: AbortSignal | undefined, what = 'load'): void {
  if (signal?.aborted) throw abortError(signal, what);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** A short description of an unknown thrown value, for wrapping it in a LayaError message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const extra = cause instanceof Error && cause.message && !error.message.includes(cause.message)
      ? ` (${cause.message})` : '';
    return `${error.message}${extra}`;
  }
  return String(error);
}
