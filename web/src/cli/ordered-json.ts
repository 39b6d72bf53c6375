// JSON read with its member order, number spelling and source spans kept, which JSON.parse loses
// (JS moves integer-like keys first, laya-spec §7.13, and prints 1.0 as 1): the parity command
// takes each case's state and questions from cases.jsonl as written and compares answers member
// by member. The engine's own reader is C++ (cpp/util/json.h); nothing here formats like Python.
import { LayaError } from '../errors.js';

interface Span {
  /** Offsets of the value's text in the parsed source: [start, end). */
  start: number;
  end: number;
}

export type JsonNode =
  | ({ kind: 'object'; members: Array<[string, JsonNode]> } & Span)
  | ({ kind: 'array'; items: JsonNode[] } & Span)
  | ({ kind: 'string'; value: string } & Span)
  /** `text` as written: "1", "1.0", "-0.0", "1e-05", "NaN", "Infinity", "-Infinity". */
  | ({ kind: 'number'; text: string } & Span)
  | ({ kind: 'literal'; value: boolean | null } & Span);

export interface ParseOptions {
  /** Accept Python's NaN / Infinity / -Infinity (json.loads does). Default true. */
  allowNonFinite?: boolean;
  maxDepth?: number;
}

/** Parses one JSON document; `what` names it in error messages. Throws invalid_request. */
export function parseOrderedJson(text: string, what: string, options: ParseOptions = {}): JsonNode {
  const parser = new Parser(text, what, options.allowNonFinite ?? true, options.maxDepth ?? 256);
  return parser.document();
}

const kNumber = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Parser {
  private pos = 0;

  constructor(private readonly text: string, private readonly what: string,
              private readonly allowNonFinite: boolean, private readonly maxDepth: number) {}

  document(): JsonNode {
    const value = this.value(0);
    this.skipSpace();
    if (this.pos !== this.text.length) this.fail('expected the end of the document');
    return value;
  }

  private fail(expected: string): never {
    const near = JSON.stringify(this.text.slice(this.pos, this.pos + 20));
    throw new LayaError('invalid_request', `${this.what}: invalid JSON at offset ${this.pos}: ${expected} (near ${near})`);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.pos++;
    }
  }

  private value(depth: number): JsonNode {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
    this.skipSpace();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') {
      const value = this.string();
      return { kind: 'string', value, start, end: this.pos };
    }
    for (const [word, literal] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, start)) {
        this.pos += word.length;
        return { kind: 'literal', value: literal, start, end: this.pos };
      }
    }
    if (this.allowNonFinite) {
      for (const word of ['NaN', 'Infinity', '-Infinity']) {
        if (this.text.startsWith(word, start)) {
          this.pos += word.length;
          return { kind: 'number', text: word, start, end: this.pos };
        }
      }
    }
    kNumber.lastIndex = start;
    const match = kNumber.exec(this.text);
    if (match === null) this.fail('expected a value');
    this.pos = start + match[0].length;
    return { kind: 'number', text: match[0], start, end: this.pos };
  }

  private object(depth: number): JsonNode {
    const start = this.pos++;
    const members: Array<[string, JsonNode]> = [];
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', members, start, end: this.pos };
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a member name');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      members.push([key, this.value(depth + 1)]);
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === '}') return { kind: 'object', members, start, end: this.pos };
      if (c !== ',') { this.pos--; this.fail("expected ',' or '}'"); }
    }
  }

  private array(depth: number): JsonNode {
    const start = this.pos++;
    const items: JsonNode[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'array', items, start, end: this.pos };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === ']') return { kind: 'array', items, start, end: this.pos };
      if (c !== ',') { this.pos--; this.fail("expected ',' or ']'"); }
    }
  }

  private string(): string {
    this.pos++;  // the opening quote
    let out = '';
    let runStart = this.pos;
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated string');
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += this.text.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail('control character in a string');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(runStart, this.pos);
      const e = this.text[this.pos + 1];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) {
        out += simple[e];
        this.pos += 2;
      } else if (e === 'u') {
        const hex = this.text.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));  // lone surrogates kept, as Python does
        this.pos += 6;
      } else {
        this.fail('bad escape');
      }
      runStart = this.pos;
    }
  }
}

/** The JSON text of a value as given (a slice of the source it was parsed from). */
export function sourceText(source: string, node: JsonNode): string {
  if (node.start < 0) throw new LayaError('internal', 'sourceText: the value was not parsed from text');
  return source.slice(node.start, node.end);
}

/** Compact JSON text of a node, numbers spelled as written (so 1.0 stays 1.0 for the engine). */
export function writeJson(node: JsonNode): string {
  switch (node.kind) {
    case 'object':
      return `{${node.members.map(([k, v]) => `${JSON.stringify(k)}:${writeJson(v)}`).join(',')}}`;
    case 'array':
      return `[${node.items.map(writeJson).join(',')}]`;
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return node.text;
    case 'literal':
      return String(node.value);
  }
}

/** The value of member `key` (the last one, as Python's dict keeps it), or undefined. */
export function member(node: JsonNode, key: string): JsonNode | undefined {
  if (node.kind !== 'object') return undefined;
  let found: JsonNode | undefined;
  for (const [k, v] of node.members) if (k === key) found = v;
  return found;
}
