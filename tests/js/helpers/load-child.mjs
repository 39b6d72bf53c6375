// Run by tests in a child Node process, so that V8 flags (--experimental-wasm-relaxed-simd) apply to
// it alone: loads a checkpoint directory with the built package and prints one JSON line,
// {simd, threads, warnings, forward?} (forward: the forwardJson text of the request file).
// argv: <dist/index.node.js> <load options as JSON> <checkpoint dir> [<forward request file>]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [entry, optionsJson, directory, requestFile] = process.argv.slice(2);
const { load } = await import(pathToFileURL(entry).href);
const warnings = [];
const model = await load({ directory }, { ...JSON.parse(optionsJson), onWarning: (w) => warnings.push(w) });
const result = { simd: model.simd, threads: model.threads, warnings };
if (requestFile !== undefined) result.forward = await model.forwardJson({ json: readFileSync(requestFile, 'utf8') });
model.dispose();
process.stdout.write(`${JSON.stringify(result)}\n`);
