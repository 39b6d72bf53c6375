// Checks the exported ONNX model of a reference fixture in onnxruntime-web (wasm backend) against
// fixture.json: proves the ONNX graph is the spec's model. Same tolerance as the project's tests.
// Usage: node bench/ort-fixture-check.mjs <model.onnx> <fixture dir>
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';

const [modelPath, fixtureDir] = process.argv.slice(2);
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(fs.readFileSync(modelPath), { executionProviders: ['wasm'] });
const fx = JSON.parse(fs.readFileSync(path.join(fixtureDir, 'fixture.json'), 'utf8'));
const i64 = (xs) => BigInt64Array.from(xs.map(BigInt));
let worst = 0, failures = 0, count = 0;
for (let n = 0; n < fx.inputs.length; ++n) {
  const inp = fx.inputs[n], exp = fx.expected[n];
  const out = await session.run({
    ids: new ort.Tensor('int64', i64(inp.ids), [1, inp.ids.length]),
    markers: new ort.Tensor('int64', i64(inp.markers), [1, inp.markers.length]),
    qtype: new ort.Tensor('int64', i64([inp.qtype]), [1]),
  });
  const pairs = [...Array.from(out.logits.data).map((g, j) => [g, exp.logits[j]]), ...Array.from(out.act.data).map((g, j) => [g, exp.act[j]])];
  for (const [got, want] of pairs) {
    const err = Math.abs(got - want) / Math.max(1, Math.abs(want));
    worst = Math.max(worst, err); count++; if (!(err <= 1e-4)) failures++;
  }
}
console.log(`onnxruntime-web ${ort.env.versions?.web ?? ''} on ${modelPath}: ${fx.inputs.length} inputs, ${count} values, worst relative error ${worst.toExponential(3)} (tolerance 1e-4), failures ${failures}`);
process.exit(failures === 0 ? 0 : 1);
