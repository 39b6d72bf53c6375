// Run inside a fresh project that installed the packed tarball: the package's Node entry
// (exports condition "node") loads the tiny reference checkpoint and its forward outputs match
// fixture.json at 1e-4 * max(1, |x|) with the same argmax. Usage: node node-check.mjs <checkpoint>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, LayaError } from 'laya-wasm';

const checkpoint = process.argv[2];
const fixture = JSON.parse(readFileSync(join(checkpoint, '..', 'fixture.json'), 'utf8'));
const model = await load({ directory: checkpoint }, { onWarning: () => undefined });
const out = await model.forward({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs });
model.dispose();

let worst = 0;
let argmaxMismatches = 0;
const check = (a, e) => e.forEach((x, i) => { worst = Math.max(worst, Math.abs((a?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x))); });
const argmax = (v) => v.indexOf(Math.max(...v));
fixture.expected.forEach((e, i) => {
  check(out.expected[i]?.logits, e.logits);
  check(out.expected[i]?.act, e.act);
  if (argmax(out.expected[i]?.logits ?? []) !== argmax(e.logits)) argmaxMismatches++;
});
fixture.embed_expected.forEach((e, i) => check(out.embed_expected[i]?.pooled, e.pooled));
const ok = worst < 1e-4 && argmaxMismatches === 0 && typeof LayaError === 'function' &&
  out.expected.length === fixture.expected.length && out.embed_expected.length === fixture.embed_expected.length;
console.log(`node: ${out.expected.length} sequences + ${out.embed_expected.length} embeddings, worst ${worst.toExponential(2)}, argmax mismatches ${argmaxMismatches}`);
process.exit(ok ? 0 : 1);
