// The first place two JSON documents differ, with member order and number spelling significant
// (Python prints 1.0, JS 1; upstream's answers are compared as Python writes them).
import type { JsonNode } from '../json/ordered-json.js';
import { pyDumps, pyNumberText } from '../json/py-json.js';

/** A description of the first difference ("answers.q1.confidence: expected 0.848, got 0.8479"), or null. */
export function firstDifference(expected: JsonNode, actual: JsonNode, path = '$'): string | null {
  const show = (n: JsonNode): string => {
    const text = pyDumps(n);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  const mismatch = (): string => `${path}: expected ${show(expected)}, got ${show(actual)}`;
  if (expected.kind !== actual.kind) return mismatch();
  switch (expected.kind) {
    case 'string':
      return expected.value === (actual as typeof expected).value ? null : mismatch();
    case 'number':
      return pyNumberText(expected.text) === pyNumberText((actual as typeof expected).text) ? null : mismatch();
    case 'literal':
      return expected.value === (actual as typeof expected).value ? null : mismatch();
    case 'array': {
      const other = actual as typeof expected;
      for (let i = 0; i < Math.min(expected.items.length, other.items.length); i++) {
        const d = firstDifference(expected.items[i] as JsonNode, other.items[i] as JsonNode, `${path}[${i}]`);
        if (d !== null) return d;
      }
      return expected.items.length === other.items.length ? null
        : `${path}: expected ${expected.items.length} items, got ${other.items.length}`;
    }
    case 'object': {
      const other = actual as typeof expected;
      const keys = (n: typeof expected): string => n.members.map(([k]) => k).join(', ');
      if (keys(expected) !== keys(other)) return `${path}: expected keys [${keys(expected)}], got [${keys(other)}]`;
      for (let i = 0; i < expected.members.length; i++) {
        const [key, value] = expected.members[i] as [string, JsonNode];
        const d = firstDifference(value, (other.members[i] as [string, JsonNode])[1], `${path}.${key}`);
        if (d !== null) return d;
      }
      return null;
    }
  }
}
