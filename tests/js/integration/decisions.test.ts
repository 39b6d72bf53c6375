// The built wasm module through the package's decision API: upstream parity of every recorded
// case with configs + tokenizer only (prepare + answer, via the CLI), and on a real checkpoint the
// pieces agree with each other: predict = answer(prepare -> forward), embed = the pooled forward
// of the same ids, and the shortlist answers only over the labels it kept.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../web/src/cli/run.js';
import { loadModelWith } from '../../../web/src/load.js';
import type { LayaModel } from '../../../web/src/model.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { predictShortlist } from '../../../web/src/shortlist.js';
import { kTinyCheckpoint, kUpstreamDir } from '../helpers/fixtures.js';
import { describeWithCore, kCoreJs, kWasm } from '../helpers/real-core.js';

const quiet = { wasm: kWasm, onWarning: () => undefined };

describeWithCore('upstream parity through the CLI', () => {
  test('every recorded case: ids, markers and the rebuilt 0.3.7 answer are identical', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'laya-parity-'));
    try {
      let stdout = '';
      let stderr = '';
      const status = await runCli(['parity', '--model', join(kUpstreamDir, 'english'), '--cases', join(kUpstreamDir, 'cases.jsonl'),
        '--recorded', join(kUpstreamDir, 'recorded.jsonl'), '--out', join(dir, 'out.jsonl'), '--wasm', kCoreJs],
        { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; } });
      const cases = readFileSync(join(kUpstreamDir, 'cases.jsonl'), 'utf8').trim().split('\n').length;
      expect(stdout).toBe(`${cases} passed, 0 failed\n`);
      expect(status).toBe(0);
      // The English checkpoint's choice:11+ temperature is clamped, and upstream warns about it.
      expect(stderr).toContain('choice:11+=0.10058280825614929 -> 0.5');
      expect(readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n')).toHaveLength(cases);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeWithCore('a real checkpoint (tiny-fanin, WordLevel "w<id>" tokens)', () => {
  let model: LayaModel;
  beforeAll(async () => {
    model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, quiet);
  });
  afterAll(() => model?.dispose());

  const questions = {
    json: '{"kind": {"type": "choice", "instructions": "w10 w11", "criteria": {"w20": "w21 w22", "w23": null, "w24": 1.0}}, ' +
      '"level": {"type": "score", "instructions": "w12", "criteria": ["w30", "w31", "w32"]}, ' +
      '"yes": {"type": "noul", "instructions": "w13 w14"}}',
  };
  const state = 'w40 w41 w42 w43 w44';

  test('predict equals the answer rebuilt from forward on the prepared rows', async () => {
    for (const shape of ['current', '0.3.7'] as const) {
      const prepared = await model.prepare(state, questions, { shape });
      expect(prepared.questions.map((q) => q.qid)).toEqual(['kind', 'level', 'yes']);
      const outputs = await model.forward({ inputs: prepared.questions.map(({ ids, markers, qtype }) => ({ ids, markers, qtype })) });
      const rebuilt = await model.answerJson(state, questions,
        { logits: outputs.expected.map((e) => e.logits), act: outputs.expected.map((e) => e.act) }, { shape });
      expect(await model.predictJson(state, questions, { shape })).toBe(rebuilt);
    }
    const answer = await model.predict(state, questions);
    expect(Object.keys(answer.answers)).toEqual(['kind', 'level', 'yes']);
    expect(answer.answers['kind']).toMatchObject({ type: 'choice' });
    expect(Object.keys((answer.answers['kind'] as { probabilities: object }).probabilities)).toEqual(['w20', 'w23', 'w24']);
  });

  test('embed equals the pooled forward of [CLS] ids [SEP], as copies', async () => {
    const [a, b] = await model.embed(['w5 w7 w9', ''], { maxLength: 16 });
    const forward = await model.forward({ inputs: [], embed_inputs: [{ ids: [1, 5, 7, 9, 2] }, { ids: [1, 2] }] });
    expect(Array.from(a as Float32Array)).toEqual(forward.embed_expected[0]?.pooled.map(Math.fround));
    expect(Array.from(b as Float32Array)).toEqual(forward.embed_expected[1]?.pooled.map(Math.fround));
    expect((a as Float32Array).length).toBe(model.config.hiddenSize);
    // maxLength truncates content, keeping the specials: 3 tokens = [CLS] w5 [SEP].
    const [cut] = await model.embed(['w5 w7 w9'], { maxLength: 3 });
    const forwardCut = await model.forward({ inputs: [], embed_inputs: [{ ids: [1, 5, 2] }] });
    expect(Array.from(cut as Float32Array)).toEqual(forwardCut.embed_expected[0]?.pooled.map(Math.fround));
  });

  test('a maxLength that is not a positive integer is refused by the engine, naming it and the value', async () => {
    for (const [maxLength, shown] of [[0, '0'], [2.5, '2.5'], [-3, '-3'], [NaN, 'NaN']] as const) {
      await expect(model.embed(['a'], { maxLength })).rejects.toMatchObject({
        code: 'invalid_request', message: `embed: maxLength must be a positive integer, got ${shown}` });
    }
  });

  test('embedJson writes the floats with the same formatter as forward (the CLI prints both)', async () => {
    const text = await model.embedJson(['w5 w7 w9'], { maxLength: 16 });
    const forwardText = await model.forwardJson({ inputs: [], embed_inputs: [{ ids: [1, 5, 7, 9, 2] }] });
    const pooled = /"pooled": (\[[^\]]*\])/.exec(forwardText)?.[1];
    expect(text).toBe(`{"embeddings": [${pooled}]}`);
  });

  test('predictShortlist answers over the k labels it kept, in rank order', async () => {
    const many = { json: '{"pick": {"type": "choice", "instructions": "w10", "criteria": ["w50", "w51", "w52", "w53", "w54", "w55"]}}' };
    const result = await predictShortlist(model, state, many, { k: 2 });
    const entry = result.shortlist['pick'];
    expect(entry).toMatchObject({ k: 2, n: 6, passthrough: false });
    expect(entry?.labels).toHaveLength(2);
    expect(entry?.scores?.[0]).toBeGreaterThanOrEqual(entry?.scores?.[1] ?? Infinity);
    expect(Object.keys((result.answers['pick'] as { probabilities: object }).probabilities)).toEqual(entry?.labels);
  });

  test('a malformed request is invalid_request naming the question', async () => {
    await expect(model.predict(state, { q: { type: 'choice', instructions: 'x', criteria: 'nope' } as never }))
      .rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining("'q'") });
  });
});

describeWithCore('checkpoint errors from the engine', () => {
  test('weights that do not match the configs are invalid_checkpoint naming tensors', async () => {
    const files: Record<string, Blob> = {};
      for (const f of ['rl_agent_config.json', 'encoder/config.json', 'tokenizer/tokenizer.json', 'tokenizer/tokenizer_config.json']) {
        files[f] = new Blob([readFileSync(join(kTinyCheckpoint, f))]);
      }
      const small = join(kTinyCheckpoint, '..', '..', 'small-fanin', 'checkpoint', 'model.safetensors');
    files['model.safetensors'] = new Blob([readFileSync(small)]);
    const error = await loadModelWith(nodeRuntime, { files }, quiet).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_checkpoint' });
    expect((error as Error).message).toContain('encoder.embeddings.tok_embeddings.weight');
  });

  test('loading leaves the process\'s error handlers as they were', async () => {
    const before = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, quiet);
    model.dispose();
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(before);
  });

  test('an aborted load leaves the module usable for the next load', async () => {
    const controller = new AbortController();
    const aborted = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, {
      ...quiet, signal: controller.signal,
      onProgress: (e) => { if (e.type === 'download' && e.file === 'model.safetensors') controller.abort(); },
    }).catch((e: unknown) => e);
    expect(aborted).toMatchObject({ name: 'AbortError' });
    await using model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, quiet);
    expect((await model.embed(['w5'])).length).toBe(1);
  });
});
