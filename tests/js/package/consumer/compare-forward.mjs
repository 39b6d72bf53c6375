// Compares a forward output file (the CLI's --out) with fixture.json at 1e-4 * max(1, |x|).
// Usage: node compare-forward.mjs <out.json> <fixture.json>
import { readFileSync } from 'node:fs';

const out = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const fixture = JSON.parse(readFileSync(process.argv[3], 'utf8'));
let worst = 0;
const check = (a, e) => e.forEach((x, i) => { worst = Math.max(worst, Math.abs((a?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x))); });
fixture.expected.forEach((e, i) => { check(out.expected[i]?.logits, e.logits); check(out.expected[i]?.act, e.act); });
fixture.embed_expected.forEach((e, i) => check(out.embed_expected?.[i]?.pooled, e.pooled));
console.log(`cli: ${out.expected.length} sequences, worst ${worst.toExponential(2)}`);
process.exit(worst < 1e-4 && out.expected.length === fixture.expected.length ? 0 : 1);
