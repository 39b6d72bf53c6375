// A page author's code: bundled by esbuild from the installed package (exports condition
// "browser"), no options about the wasm: the bundle holds the ES-module glue, which finds its .wasm
// beside the bundle through new URL(..., import.meta.url); esbuild does not emit those files, so
// the author copies dist/wasm/*.wasm and *.mjs there (Vite and webpack do it themselves).
import { load } from 'laya-wasm';

async function run() {
  const checkpoint = new URL('../ckpt/', document.baseURI).href;
  const fixture = await (await fetch(new URL('../fixture/fixture.json', document.baseURI))).json();
  const model = await load({ url: checkpoint }, { onWarning: () => undefined });
  const out = await model.forward({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs });
  const answer = await model.predict('w5 w7', { q: { type: 'choice', instructions: 'w9', criteria: ['w1', 'w2'] } });
  model.dispose();
  let worst = 0;
  const check = (a, e) => e.forEach((x, i) => { worst = Math.max(worst, Math.abs((a?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x))); });
  fixture.expected.forEach((e, i) => { check(out.expected[i]?.logits, e.logits); check(out.expected[i]?.act, e.act); });
  fixture.embed_expected.forEach((e, i) => check(out.embed_expected[i]?.pooled, e.pooled));
  return { worst, sequences: out.expected.length, expectedSequences: fixture.expected.length, choice: answer.answers.q.choice };
}

window.result = run().catch((error) => ({ error: `${error.code ?? error.name}: ${error.message}` }));
