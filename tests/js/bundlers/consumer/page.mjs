// A page author's code, bundled from the installed tarball by Vite or webpack 5 with no option
// about the wasm module: the bundler finds and emits the .wasm files, the glue and its pthread
// workers by itself. The query picks the variant: ?threads=N (the page is served cross-origin
// isolated, so N > 1 runs the pthreads build) and ?worker (load(..., { worker: true })).
// It compares forward outputs with the tiny reference fixture and leaves its findings in window.result.
import { load } from 'laya-wasm';

async function run() {
  const query = new URLSearchParams(location.search);
  const fixture = await (await fetch(new URL('/fixture/fixture.json', location.href))).json();
  const warnings = [];
  const model = await load({ url: new URL('/ckpt/', location.href).href }, {
    threads: Number(query.get('threads') ?? '1'),
    ...(query.has('worker') ? { worker: true } : {}),
    onWarning: (warning) => warnings.push(warning),
  });
  try {
    const outputs = await model.forward({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs });
    const answer = await model.predict('w5 w7', { q: { type: 'choice', instructions: 'w9', criteria: ['w1', 'w2'] } });
    let worst = 0;
    const check = (actual, expected) => expected.forEach((x, i) => {
      worst = Math.max(worst, Math.abs((actual?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x)));
    });
    fixture.expected.forEach((e, i) => { check(outputs.expected[i]?.logits, e.logits); check(outputs.expected[i]?.act, e.act); });
    fixture.embed_expected.forEach((e, i) => check(outputs.embed_expected[i]?.pooled, e.pooled));
    return {
      worst, sequences: outputs.expected.length, expectedSequences: fixture.expected.length,
      embeddings: outputs.embed_expected.length, expectedEmbeddings: fixture.embed_expected.length,
      choice: answer.answers.q.choice, threads: model.threads, simd: model.simd, warnings,
    };
  } finally {
    model.dispose();
  }
}

window.result = run().catch((error) => ({ error: `${error.code ?? error.name}: ${error.message}` }));
