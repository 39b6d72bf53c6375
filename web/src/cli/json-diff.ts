// The first place two JSON documents differ, with member order significant and numbers equal
// when Python reads them as the same value (1.0 is a float and 1 an int; 1.0 and 1.00 are one),
// for the parity command's readable report.
import { writeJson, type JsonNode } from './ordered-json.js';

/** A description of the first difference ("answers.q1.confidence: expected 0.848, got 0.8479"), or null. */
export function firstDifference(expected: JsonNode, actual: JsonNode, path = '$'): string | null {
  const show = (n: JsonNode): string => {
    const text = writeJson(n);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  const mismatch = (): string => `${path}: expected ${show(expected)}, got ${show(actual)}`;
  if (expected.kind !== actual.kind) return mismatch();
  switch (expected.kind) {
    case 'string':
      return expected.value === (actual as typeof expected).value ? null : mismatch();
    case 'number':
      return sameNumber(expected.text, (actual as typeof expected).text) ? null : mismatch();
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

/** json.loads makes an int of a number without '.', 'e' or 'E' (exact), a float of any other. */
function sameNumber(a: string, b: string): boolean {
  const isInt = (t: string): boolean => /^-?\d+$/.test(t);
  if (isInt(a) || isInt(b)) return isInt(a) && isInt(b) && BigInt(a) === BigInt(b);
  return Object.is(Number(a), Number(b));
}
