// The reference fixtures (tests/data/fixtures/reference/<name>: an independent PyTorch fp32
// reference, see the README there) and the one comparison the forward tests hold outputs to:
// every value within 1e-4 * max(1, |expected|), the same argmax, nothing missing or extra.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ForwardRequest, ForwardResult } from '../../../web/src/request.js';
import { kFixturesDir } from './fixtures.js';

export interface ReferenceFixture extends ForwardRequest, ForwardResult {}

/** The folder of one reference set: its checkpoint/ and fixture.json. */
export const referenceSetDir = (name: string): string => join(kFixturesDir, 'reference', name);

export const referenceFixture = (name: string): ReferenceFixture =>
  JSON.parse(readFileSync(join(referenceSetDir(name), 'fixture.json'), 'utf8')) as ReferenceFixture;

/**
 * Every value's error relative to max(1, |expected|) (Infinity for a NaN), the inputs whose logits'
 * argmax moved, and how many outputs of each kind came back. Each compared row must have the
 * expected length (a Jest expectation).
 */
export function compareWithReference(actual: ForwardResult, expected: ReferenceFixture):
  { worst: number; argmaxMoved: number[]; counts: number[] } {
  let worst = 0;
  const argmaxMoved: number[] = [];
  const check = (a: number[] | undefined, e: number[]): void => {
    expect(a).toHaveLength(e.length);
    e.forEach((x, i) => { worst = Math.max(worst, Math.abs((a?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x))); });
  };
  const argmax = (v: number[]): number => v.indexOf(Math.max(...v));
  expected.expected.forEach((e, i) => {
    check(actual.expected[i]?.logits, e.logits);
    check(actual.expected[i]?.act, e.act);
    if (argmax(actual.expected[i]?.logits ?? []) !== argmax(e.logits)) argmaxMoved.push(i);
  });
  expected.embed_expected.forEach((e, i) => check(actual.embed_expected[i]?.pooled, e.pooled));
  return { worst: Number.isNaN(worst) ? Infinity : worst, argmaxMoved,
    counts: [actual.expected.length, actual.embed_expected.length] };
}
