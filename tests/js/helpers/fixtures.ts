// Paths of the fixtures the tests use (tests/data/fixtures, see its README).
import { expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const kRepoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const kFixturesDir = join(kRepoRoot, 'tests', 'data', 'fixtures');
export const kTinyCheckpoint = join(kFixturesDir, 'reference', 'tiny-fanin', 'checkpoint');
export const kSmallCheckpoint = join(kFixturesDir, 'reference', 'small-fanin', 'checkpoint');
export const kUpstreamDir = join(kFixturesDir, 'upstream');

/** The data section of a safetensors file: every byte after the 8-byte length and the header. */
export function safetensorsDataSection(path: string): Uint8Array {
  const bytes = new Uint8Array(readFileSync(path));
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  return bytes.subarray(8 + headerLength);
}

/** Byte-for-byte equality, reported as the first differing offset (toEqual is slow on megabytes). */
export function expectSameBytes(actual: Uint8Array | null | undefined, expected: Uint8Array): void {
  expect(actual).toBeInstanceOf(Uint8Array);
  const a = actual as Uint8Array;
  let firstDifference = a.byteLength === expected.byteLength ? -1 : Math.min(a.byteLength, expected.byteLength);
  for (let i = 0; i < Math.min(a.byteLength, expected.byteLength); i++) {
    if (a[i] !== expected[i]) {
      firstDifference = i;
      break;
    }
  }
  expect({ length: a.byteLength, firstDifference }).toEqual({ length: expected.byteLength, firstDifference: -1 });
}
