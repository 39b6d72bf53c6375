// The parity command's comparison of an answer with the recording: equal when Python would read
// the same values in the same member order, whatever the spacing; otherwise the first difference.
import { firstDifference } from '../../../web/src/cli/json-diff.js';
import { parseOrderedJson } from '../../../web/src/cli/ordered-json.js';

const diff = (expected: string, actual: string): string | null =>
  firstDifference(parseOrderedJson(expected, 'expected'), parseOrderedJson(actual, 'actual'));

describe('firstDifference', () => {
  test('spacing and number spellings of the same value are no difference', () => {
    expect(diff('{"a": [1.0, 1e-05, -0, NaN], "b": "é"}', '{"a":[1.00,0.00001,0,NaN],"b":"\\u00e9"}')).toBeNull();
  });

  test('an int is not a float, and -0.0 is not 0.0', () => {
    expect(diff('{"p": 1.0}', '{"p": 1}')).toBe('$.p: expected 1.0, got 1');
    expect(diff('[-0.0]', '[0.0]')).toBe('$[0]: expected -0.0, got 0.0');
  });

  test('member order and item counts are differences', () => {
    expect(diff('{"a": 1, "b": 2}', '{"b": 2, "a": 1}')).toBe('$: expected keys [a, b], got [b, a]');
    expect(diff('[1, 2]', '[1]')).toBe('$: expected 2 items, got 1');
  });
});
