// Python's formatting of floats and strings, checked against tables CPython wrote
// (tests/data/decide, scripts/decide_reference_tables.py) and against halfway cases worked by hand.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kRepoRoot } from '../helpers/fixtures.js';
import { formatFixed, pyFloatRepr, pyRepr, pyRound, pyRoundToInt } from '../../../web/src/router/python-format.js';

function readRows<T>(name: string): T[] {
  return readFileSync(join(kRepoRoot, 'tests', 'data', 'decide', name), 'utf8')
    .split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as T);
}

describe('round(x, 4) is Python\'s correctly rounded round', () => {
  test('every row of CPython\'s round table matches', () => {
    const rows = [...readRows<{ x: string; round4: string }>('python_rounds.jsonl'),
      ...readRows<{ text: string; round4: string }>('python_floats.jsonl').map((r) => ({ x: r.text, round4: r.round4 }))];
    const wrong = rows.filter((r) => {
      const x = Number(r.x);
      return Number.isFinite(x) && !Object.is(pyRound(x, 4), Number(r.round4));
    });
    expect(wrong).toEqual([]);
  });

  test('exact ties go to the even neighbour, not up', () => {
    expect(pyRound(0.03125, 4)).toBe(0.0312);     // 1/32: 312.5 ten-thousandths
    expect(pyRound(0.09375, 4)).toBe(0.0938);     // 3/32: 937.5 -> 938
    expect(pyRound(-0.03125, 4)).toBe(-0.0312);
    expect(pyRound(1.96875, 4)).toBe(1.9688);     // 63/32
  });

  test('a value that rounds to zero keeps its sign, as Python\'s float does', () => {
    expect(Object.is(pyRound(-0.00001, 4), -0)).toBe(true);
    expect(Object.is(pyRound(0.00001, 4), 0)).toBe(true);
  });

  test('a decimal that only looks halfway rounds by its binary value', () => {
    // 0.00015 is stored as 0.000149999999999999986..., below the tie
    expect(pyRound(0.00015, 4)).toBe(0.0001);
    // 0.00025 is stored as 0.000250000000000000005..., above the tie
    expect(pyRound(0.00025, 4)).toBe(0.0003);
  });

  test('round(x) breaks ties to even and gives an integer', () => {
    expect([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 2.4999, 2.5001].map(pyRoundToInt)).toEqual([0, 2, 2, 4, 0, -2, 2, 3]);
  });
});

describe('%.0f prints as Python prints it', () => {
  test('halves go to the even integer', () => {
    expect(['0.5', '1.5', '2.5', '12.5', '37.5', '70', '-0.4'].map((x) => formatFixed(Number(x), 0)))
      .toEqual(['0', '2', '2', '12', '38', '70', '-0']);
  });
});

describe('repr of a float is Python\'s', () => {
  test('every row of CPython\'s repr table matches', () => {
    const wrong = readRows<{ text: string; repr: string }>('python_floats.jsonl')
      .filter((r) => pyFloatRepr(Number(r.text)) !== r.repr);
    expect(wrong).toEqual([]);
  });
});

describe('repr of a str is Python\'s', () => {
  test('every row of CPython\'s str repr table matches', () => {
    const wrong = readRows<{ s: string; repr: string }>('python_str_reprs.jsonl').filter((r) => pyRepr(r.s) !== r.repr);
    expect(wrong).toEqual([]);
  });

  test('the quote is double only when the text holds a single quote and no double one', () => {
    expect(pyRepr("it's")).toBe(`"it's"`);
    expect(pyRepr('say "hi"')).toBe(`'say "hi"'`);
    expect(pyRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
  });
});
