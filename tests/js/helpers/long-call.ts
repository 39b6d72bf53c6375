// A call made long by measuring, not by assuming the machine's speed (issue 22): the caller's
// predict is run with more and more of kLongState's 512-token questions until one call takes at
// least `minMs` here, in this engine, now. A test that needs "a predict of about a second" gets one
// on a machine three times faster or slower than the build machine, quiet or busy.
// Imports nothing from node:, so pages import it too (the page server transpiles tests/js/).
import { manyQuestions, type ChoiceQuestions } from './long-request.js';

/** The call that crossed `minMs`: its questions, its own start and end (performance.now()), its result. */
export interface LongCall<T> {
  questions: ChoiceQuestions;
  count: number;
  startMs: number;
  endMs: number;
  ms: number;
  result: T;
}

/** No test needs more: on the slowest machine a tenth of this is already seconds. */
const kMaxQuestions = 4096;

/**
 * Runs `call` with `count` questions, starting at `firstCount`, growing the count from each
 * measured duration, until one call lasts `minMs` or more; returns that call. Throws when even
 * kMaxQuestions questions answer faster, naming what was measured.
 */
export async function growUntilLong<T>(
  call: (questions: ChoiceQuestions) => Promise<T>, minMs: number, firstCount = 4,
): Promise<LongCall<T>> {
  let count = firstCount;
  for (;;) {
    const questions = manyQuestions(count);
    const startMs = performance.now();
    const result = await call(questions);
    const endMs = performance.now();
    const ms = endMs - startMs;
    if (ms >= minMs) return { questions, count, startMs, endMs, ms, result };
    if (count >= kMaxQuestions) {
      throw new Error(`growUntilLong: ${count} questions answered in ${ms.toFixed(0)} ms, under the ${minMs} ms asked for`);
    }
    // Aim a quarter past the target (time is about linear in the question count), growing at
    // least 1.5x and at most 8x a step, so a noisy short measure cannot overshoot wildly.
    const factor = Math.min(8, Math.max(1.5, (1.25 * minMs) / Math.max(ms, 1)));
    count = Math.min(kMaxQuestions, Math.ceil(count * factor));
  }
}
