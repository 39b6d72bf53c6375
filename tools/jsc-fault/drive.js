// JavaScriptCore's intermittent wasm fault without a browser (docs/engine-faults.md): the jsc shell
// (Debian's libjavascriptcoregtk-4.0-bin, the same JavaScriptCore as WebKitGTK's) loads the package's
// plain-SIMD module and the tiny fixture checkpoint as load() does, then predicts once, `rounds`
// times, each round in a freshly compiled module. Every chunk of the weights is copied into wasm
// memory and then released (ArrayBuffer.prototype.transfer(0)), as the page's stream reader does.
// A round whose predict throws prints the error and the stack; the last line counts them.
// Usage: jsc tools/jsc-fault/drive.js -- <module dir, e.g. dist/wasm> <rounds> <questions>
/* global readFile, preciseTime, print, load, createLayaCore */
const [moduleDir, roundsText, questionsText, releasedText = '200'] = arguments;
const kCheckpoint = 'tests/data/fixtures/reference/tiny-fanin/checkpoint/';
const kChunkBytes = 65536;
globalThis.performance = { now: () => preciseTime() * 1000 };
load(`${moduleDir}/laya-core.js`);
const wasmBinary = readFile(`${moduleDir}/laya-core.wasm`, 'binary');
const weights = new Uint8Array(readFile(`${kCheckpoint}model.safetensors`, 'binary'));
const configs = ['rl_agent_config.json', 'encoder/config.json', 'tokenizer/tokenizer.json', 'tokenizer/tokenizer_config.json']
  .map((file) => readFile(kCheckpoint + file));
// The frame-gaps test's request: a 500-token state, three-label choice questions.
const state = Array.from({ length: 1200 }, (_, i) => `w${5 + (i % 90)}`).join(' ');
const questions = {};
for (let i = 0; i < Number(questionsText); i++) {
  questions[`q${i}`] = { type: 'choice', instructions: `w10 w${11 + (i % 50)}`, criteria: ['w12', 'w13', 'w16'] };
}

function expectEmpty(result, what) {
  if (result !== '') throw new Error(`${what}: ${result}`);
}

async function round() {
  const core = await createLayaCore({ wasmBinary, print, printErr: () => undefined });
  const session = new core.LayaSession();
  try {
    expectEmpty(session.configure(...configs), 'configure');
    const headerEnd = JSON.parse(session.headerBytesNeeded(weights.subarray(0, 8), weights.length)).headerEnd;
    const plan = JSON.parse(session.planWeights(weights.subarray(0, headerEnd), weights.length));
    for (let at = 0; at < plan.dataLength; at += kChunkBytes) {
      const end = Math.min(plan.dataLength, at + kChunkBytes);
      const chunk = weights.slice(plan.dataOffset + at, plan.dataOffset + end);
      core.HEAPU8.set(chunk, plan.pointer + at);
      chunk.buffer.transfer(0);
      expectEmpty(session.weightsWritten(end), 'weightsWritten');
    }
    expectEmpty(session.finishWeights(), 'finishWeights');
    for (let i = 0; i < Number(releasedText); i++) {
      const chunk = new ArrayBuffer(kChunkBytes * (1 + (i % 4)));
      new Uint8Array(chunk).fill(i);
      chunk.transfer(0);
    }
    const answer = session.predict(state, false, JSON.stringify(questions), '{}');
    if (answer.startsWith('{"error"')) throw new Error(`predict: ${answer.slice(0, 300)}`);
  } finally {
    session.delete();
  }
}

(async () => {
  let faults = 0;
  const rounds = Number(roundsText);
  for (let r = 0; r < rounds; r++) {
    try {
      await round();
    } catch (error) {
      faults++;
      print(`round ${r}: ${error}\n${error.stack}`);
    }
  }
  print(`${faults} of ${rounds} rounds failed`);
})();
