// Python's json.dumps (default separators ", " and ": ", keys in order) over a JsonNode, as
// upstream renders states, instructions and criteria (laya-spec §4.2): integers exact, floats in repr
// form (1e-05, 1.0, 1e+16, -0.0), NaN / Infinity literal, only quotes, backslashes and C0
// controls escaped unless ensure_ascii.
import type { JsonNode } from './ordered-json.js';

export interface PyDumpsOptions {
  /** Python's ensure_ascii: escape every non-ASCII character as \uXXXX. Default false. */
  ensureAscii?: boolean;
}

export function pyDumps(node: JsonNode, options: PyDumpsOptions = {}): string {
  const ascii = options.ensureAscii ?? false;
  const dump = (n: JsonNode): string => {
    switch (n.kind) {
      case 'object':
        return n.members.length === 0
          ? '{}'
          : `{${n.members.map(([k, v]) => `${pyQuote(k, ascii)}: ${dump(v)}`).join(', ')}}`;
      case 'array':
        return n.items.length === 0 ? '[]' : `[${n.items.map(dump).join(', ')}]`;
      case 'string':
        return pyQuote(n.value, ascii);
      case 'number':
        return pyNumberText(n.text);
      case 'literal':
        return n.value === null ? 'null' : n.value ? 'true' : 'false';
    }
  };
  return dump(node);
}

/** What Python prints for a JSON number written as `text`: an int as is, a float as its repr. */
export function pyNumberText(text: string): string {
  if (/^-?\d+$/.test(text)) return /^-0+$/.test(text) ? '0' : text;
  return pyFloatRepr(Number(text));
}

/** Python's repr(float): shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() with no argument gives the shortest digits that round-trip, like repr.
  const [mantissa = '', exponentText = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const decimalPoint = exponent + 1;  // value = 0.<digits> * 10^decimalPoint
  if (decimalPoint > -4 && decimalPoint <= 16) {
    if (decimalPoint <= 0) return `${sign}0.${'0'.repeat(-decimalPoint)}${digits}`;
    if (decimalPoint >= digits.length) return `${sign}${digits}${'0'.repeat(decimalPoint - digits.length)}.0`;
    return `${sign}${digits.slice(0, decimalPoint)}.${digits.slice(decimalPoint)}`;
  }
  const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const magnitude = String(Math.abs(exponent)).padStart(2, '0');
  return `${sign}${head}e${exponent < 0 ? '-' : '+'}${magnitude}`;
}

const kShortEscapes: Record<string, string> = {
  '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f',
};

/** A Python json string literal. */
export function pyQuote(s: string, ensureAscii = false): string {
  const pattern = ensureAscii ? /[\\"]|[^ -~]/g : /[\x00-\x1f\\"]/g;
  const escaped = s.replace(pattern, (c) =>
    kShortEscapes[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}
