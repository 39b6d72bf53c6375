// The parity command's ordered JSON reader: member order, number spelling and source spans
// survive; errors name the document and the offset.
import { LayaError } from '../../../web/src/errors.js';
import { member, parseOrderedJson, sourceText, writeJson } from '../../../web/src/cli/ordered-json.js';

describe('parseOrderedJson', () => {
  test('keeps member order, number text and each value\'s source text', () => {
    const text = '{"z": 1.0, "10": [1e-05, -0], "a": {"s": "\\u00e9\\ud83d\\ude00"}}';
    const node = parseOrderedJson(text, 'doc');
    expect(node.kind === 'object' && node.members.map(([k]) => k)).toEqual(['z', '10', 'a']);
    expect(member(node, 'z')).toMatchObject({ kind: 'number', text: '1.0' });
    expect(sourceText(text, member(node, '10')!)).toBe('[1e-05, -0]');
    expect(member(member(node, 'a')!, 's')).toMatchObject({ kind: 'string', value: 'é\u{1F600}' });
    expect(writeJson(node)).toBe('{"z":1.0,"10":[1e-05,-0],"a":{"s":"é\u{1F600}"}}');
  });

  test('reads Python\'s NaN and Infinity literals', () => {
    expect(parseOrderedJson('[NaN, -Infinity]', 'doc')).toMatchObject({ items: [{ text: 'NaN' }, { text: '-Infinity' }] });
  });

  test('a repeated member reads as its last value', () => {
    expect(writeJson(member(parseOrderedJson('{"a": 1, "b": 2, "a": 3}', 'doc'), 'a')!)).toBe('3');
  });

  test.each([
    ['{"a": 1,}', 'offset 8'],
    ['[1 2]', "expected ',' or ']'"],
    ['"abc', 'unterminated string'],
    ['01', 'expected the end of the document'],
    ['{"a": tru}', 'expected a value'],
  ])('rejects %s naming the document and the place', (text, fragment) => {
    let caught: unknown;
    try {
      parseOrderedJson(text, 'questions');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LayaError);
    expect((caught as LayaError).code).toBe('invalid_request');
    expect((caught as LayaError).message).toContain('questions: invalid JSON at offset');
    expect((caught as LayaError).message).toContain(fragment);
  });
});
