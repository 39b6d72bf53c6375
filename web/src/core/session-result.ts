// Reading what a LayaSession method returned: its failures arrive as '{"error":{...}}' text
// (no exception crosses the wasm boundary), and become LayaErrors here.
import { LayaError, isLayaErrorCode } from '../errors.js';

const kErrorPrefix = /^\s*\{\s*"error"\s*:/;

/** Throws the LayaError a session reported; otherwise returns its text unchanged. */
export function checkSessionResult(text: unknown, what: string): string {
  if (typeof text !== 'string') {
    throw new LayaError('internal', `${what}: the wasm module returned ${typeof text}, not a string`);
  }
  if (!kErrorPrefix.test(text)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new LayaError('internal', `${what}: the wasm module returned malformed error text: ${text.slice(0, 200)}`);
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown } }).error ?? {};
  const message = typeof error.message === 'string' ? error.message : `${what} failed`;
  // The engine stopped on the caller's abort (setAbortWatch): cancellation is an AbortError.
  if (error.code === 'aborted') throw new DOMException(`laya-wasm ${what} was aborted: ${message}`, 'AbortError');
  if (isLayaErrorCode(error.code)) throw new LayaError(error.code, message);
  throw new LayaError('internal', `${message} (error code ${JSON.stringify(error.code)})`);
}

/** Calls a session method that returns JSON text, and parses the text. */
export function parseSessionJson<T>(text: unknown, what: string): T {
  const checked = checkSessionResult(text, what);
  try {
    return JSON.parse(checked) as T;
  } catch {
    throw new LayaError('internal', `${what}: the wasm module returned malformed JSON: ${checked.slice(0, 200)}`);
  }
}

/** Calls a session method whose success is "" (configure, finishWeights). */
export function expectEmptyResult(text: unknown, what: string): void {
  const checked = checkSessionResult(text, what);
  if (checked !== '') {
    throw new LayaError('internal', `${what}: expected an empty success result, got: ${checked.slice(0, 200)}`);
  }
}

/** A number field of a session's JSON result, checked. */
export function numberField(value: Record<string, unknown>, key: string, what: string): number {
  const field = value[key];
  if (typeof field !== 'number' || !Number.isSafeInteger(field) || field < 0) {
    throw new LayaError('internal', `${what}: the wasm module returned ${key} = ${JSON.stringify(field)}, not a size`);
  }
  return field;
}
