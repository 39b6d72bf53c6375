// The `routing` object as upstream's JSON answer spells it: json.dumps separators (", ", ": "),
// floats in Python's repr (1.0, 1e-05), text kept as it is (the answer's own ensure_ascii=False).
import type { Routing } from './route.js';
import { pyFloatRepr } from './python-format.js';

function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pyFloatRepr(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
}

/** `routing` as JSON text; every number in it is a Python float (fractions, rates). */
export function routingJson(routing: Routing): string {
  return pythonJson(routing);
}

/** An answer's JSON text with `"routing"` appended as its last key, the rest of the text untouched. */
export function appendRouting(answerJson: string, routing: Routing): string {
  const end = answerJson.lastIndexOf('}');
  if (end < 0) throw new Error(`appendRouting: the answer is not a JSON object: ${answerJson.slice(0, 80)}`);
  const body = answerJson.slice(0, end).trimEnd();
  const separator = body.endsWith('{') ? '' : ', ';
  return `${body}${separator}"routing": ${routingJson(routing)}${answerJson.slice(end)}`;
}
