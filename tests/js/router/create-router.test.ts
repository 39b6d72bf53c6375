// createRouter: requests routed to their checkpoint, loaded on first use, one held at a time by
// default. A fake load function pins the cache's bookkeeping; the package's own load path (with the
// stand-in engine, then the built wasm) proves it on the two fixture checkpoints.
import { describe, expect, test } from '@jest/globals';
import { loadModelWith } from '../../../web/src/load.js';
import type { LayaModel } from '../../../web/src/model.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import type { LoadOptions } from '../../../web/src/options.js';
import { createRouter } from '../../../web/src/router/create-router.js';
import type { CheckpointSource } from '../../../web/src/sources/checkpoint-source.js';
import { FakeCore } from '../helpers/fake-core.js';
import { kSmallCheckpoint, kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

const kEnglishState = { body: 'I was charged twice for invoice 4411, please refund.' };
const kGermanState = { body: 'Der Kunde wurde zweimal belastet und moechte eine Rueckerstattung' };
const kAnswer = '{"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 3, "output_tokens": 0}}';

/** A load() whose models answer kAnswer, and which records loads, disposals and how many are alive. */
function fakeLoad(delayMs = 0) {
  const log: string[] = [];
  let alive = 0;
  let mostAlive = 0;
  const load = async (source: CheckpointSource): Promise<LayaModel> => {
    const name = (source as { directory: string }).directory;
    log.push(`load ${name}`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    alive += 1;
    mostAlive = Math.max(mostAlive, alive);
    let disposed = false;
    return {
      predictJson: async () => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (disposed) throw new Error(`${name} answered after it was disposed`);
        return kAnswer;
      },
      dispose: () => {
        if (!disposed) {
          disposed = true;
          alive -= 1;
          log.push(`dispose ${name}`);
        }
      },
    } as unknown as LayaModel;
  };
  return { load, log, get mostAlive() { return mostAlive; }, get alive() { return alive; } };
}

const kSources = { english: { directory: 'en' }, multilingual: { directory: 'ml' } };
const kQuestions = { dept: { type: 'choice', instructions: 'Which team?', criteria: { billing: null, tech: null } } };

describe('routing a predict', () => {
  test('the answer keeps its text and gains routing after usage', async () => {
    const fake = fakeLoad();
    const router = createRouter(fake.load, { sources: kSources });
    const text = await router.predictJson(kEnglishState, kQuestions as never);
    expect(text).toBe('{"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 3, "output_tokens": 0}, '
      + '"routing": {"model": "english", "repo": "convaiinnovations/laya", "reason": "English Latin text", '
      + '"detection": {"script": "latin", "script_profile": {"latin": 1.0}, "language": "en", "is_english": true, '
      + '"language_undecided": false, "diacritic_rate": 0.0, "non_latin_fraction": 0.0, "mixed_segment": null}, '
      + '"workflow": null}}');
  });

  test('an explicit model is loaded from its source whatever the text', async () => {
    const fake = fakeLoad();
    const router = createRouter(fake.load, { sources: kSources });
    const answer = await router.predict(kEnglishState, kQuestions as never, { model: 'ml' });
    expect([answer.routing.model, answer.routing.reason, fake.log]).toEqual(['multilingual', "explicit model='ml'", ['load ml']]);
  });

  test('a checkpoint with no source is refused before anything loads', async () => {
    const fake = fakeLoad();
    const router = createRouter(fake.load, { sources: { english: { directory: 'en' } } });
    await expect(router.predict(kGermanState, kQuestions as never)).rejects.toMatchObject({ code: 'invalid_request' });
    expect(fake.log).toEqual([]);
  });
});

describe('routing a batch and a long state', () => {
  /** A load() whose models answer each state with its own text, recording every call. */
  function recordingLoad() {
    const calls: Array<{ model: string; method: string; states: unknown[]; questions: unknown; options: Record<string, unknown> }> = [];
    const answer = (state: unknown): string => `{"model": "laya-rl-agent", "answers": {"echo": ${JSON.stringify(JSON.stringify(state))}}, "usage": {"input_tokens": 1, "output_tokens": 0}}`;
    const load = async (source: CheckpointSource): Promise<LayaModel> => {
      const model = (source as { directory: string }).directory;
      return {
        predictBatchJson: async (states: unknown[], questions: unknown, options: Record<string, unknown>) => {
          calls.push({ model, method: 'predictBatch', states, questions, options });
          return states.map(answer);
        },
        predictLongJson: async (state: unknown, questions: unknown, options: Record<string, unknown>) => {
          calls.push({ model, method: 'predictLong', states: [state], questions, options });
          return answer(state);
        },
        dispose: () => undefined,
      } as unknown as LayaModel;
    };
    return { load, calls };
  }

  test('predictBatch groups requests by checkpoint, questions and budgets, answers in input order, each with its routing', async () => {
    const fake = recordingLoad();
    const router = createRouter(fake.load, { sources: kSources, maxLoaded: 2 });
    const other = { yes: { type: 'noul', instructions: 'Is it?' } };
    const progress: string[] = [];
    const answers = await router.predictBatch([
      { state: kEnglishState, questions: kQuestions as never },
      { state: kGermanState, questions: kQuestions as never },
      { state: { body: 'I was charged twice for invoice 5522, please refund it.' }, questions: kQuestions as never },
      { state: kEnglishState, questions: other as never },
      { state: kEnglishState, questions: kQuestions as never, maxLen: 256 },
    ], { batchSize: 8, onProgress: ({ done, total }) => progress.push(`${done}/${total}`) });
    expect(answers.map((a) => a.routing.model)).toEqual(['english', 'multilingual', 'english', 'english', 'english']);
    expect(answers.map((a) => JSON.parse(a.answers['echo'] as unknown as string))).toEqual([
      kEnglishState, kGermanState, { body: 'I was charged twice for invoice 5522, please refund it.' }, kEnglishState, kEnglishState]);
    expect(fake.calls.map((c) => [c.model, c.states.length, c.options['maxLen'] ?? null, c.options['lang'] ?? null])).toEqual([
      ['en', 2, null, 'en'], ['ml', 1, null, 'de'], ['en', 1, null, 'en'], ['en', 1, 256, 'en'],
    ]);
    expect(fake.calls.every((c) => c.options['batchSize'] === 8)).toBe(true);
    expect(progress).toEqual(['2/5', '3/5', '4/5', '5/5']);
  });

  test('predictLong routes as predict does and hands the checkpoint the detected language', async () => {
    const fake = recordingLoad();
    const router = createRouter(fake.load, { sources: kSources });
    const answer = await router.predictLong(kGermanState, kQuestions as never, { window: 64 });
    expect(answer.routing.model).toBe('multilingual');
    expect(fake.calls).toEqual([{ model: 'ml', method: 'predictLong', states: [kGermanState], questions: kQuestions, options: { window: 64, lang: 'de' } }]);
  });
});

describe('holding checkpoints', () => {
  test('alternating languages hold one checkpoint, disposing each before the next loads', async () => {
    const fake = fakeLoad();
    const router = createRouter(fake.load, { sources: kSources });
    for (let i = 0; i < 3; i += 1) {
      await router.predict(kEnglishState, kQuestions as never);
      await router.predict(kGermanState, kQuestions as never);
      expect(router.loaded).toEqual(['multilingual']);
    }
    // upstream's alternating workload: with a cap of one, every switch builds the other checkpoint
    expect(fake.log.filter((l) => l.startsWith('load')).length).toBe(6);
    expect(fake.mostAlive).toBe(1);
    expect(fake.log.slice(0, 4)).toEqual(['load en', 'dispose en', 'load ml', 'dispose ml']);
  });

  test('maxLoaded 2 keeps both, least recently used first', async () => {
    const fake = fakeLoad();
    const router = createRouter(fake.load, { sources: kSources, maxLoaded: 2 });
    for (let i = 0; i < 3; i += 1) {
      await router.predict(kGermanState, kQuestions as never);
      await router.predict(kEnglishState, kQuestions as never);
    }
    expect([router.loaded, fake.log]).toEqual([['multilingual', 'english'], ['load ml', 'load en']]);
  });

  test('concurrent calls share one load, and a checkpoint answering a call is disposed when it ends', async () => {
    const fake = fakeLoad(20);
    const router = createRouter(fake.load, { sources: kSources });
    const calls = [
      router.predict(kEnglishState, kQuestions as never),
      router.predict(kEnglishState, kQuestions as never),
      router.predict(kGermanState, kQuestions as never),
    ];
    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.routing.model)).toEqual(['english', 'english', 'multilingual']);
    expect(fake.log).toEqual(['load en', 'dispose en', 'load ml']);
    expect(fake.mostAlive).toBe(1);
  });

  test('a failed load is forgotten, so the next call tries again', async () => {
    let fail = true;
    const fake = fakeLoad();
    const router = createRouter(async (source: CheckpointSource) => {
      if (fail) throw new Error('network down');
      return fake.load(source);
    }, { sources: kSources });
    await expect(router.predict(kEnglishState, kQuestions as never)).rejects.toThrow('network down');
    fail = false;
    expect((await router.predict(kEnglishState, kQuestions as never)).routing.model).toBe('english');
    expect(router.loaded).toEqual(['english']);
  });

  test('dispose releases every checkpoint', async () => {
    const fake = fakeLoad();
    const router = createRouter(fake.load, { sources: kSources, maxLoaded: 2 });
    await router.predict(kEnglishState, kQuestions as never);
    await router.predict(kGermanState, kQuestions as never);
    await router.dispose();
    expect([router.loaded, fake.alive]).toEqual([[], 0]);
  });
});

describe('on the package\'s load path with the two fixture checkpoints', () => {
  test('the stand-in engine holds one session at a time', async () => {
    const core = new FakeCore();
    const models: LayaModel[] = [];
    const load = async (source: CheckpointSource, options?: LoadOptions): Promise<LayaModel> => {
      const model = await loadModelWith(nodeRuntime, source, { ...options, wasm: { factory: core.factory } });
      models.push(model);
      return model;
    };
    const router = createRouter(load, {
      sources: { english: { directory: kTinyCheckpoint }, multilingual: { directory: kSmallCheckpoint } },
    });
    await router.predictJson(kEnglishState, kQuestions as never);
    expect(core.live).toBe(1);
    await router.predictJson(kGermanState, kQuestions as never);
    expect([core.live, router.loaded, models.map((m) => m.disposed)]).toEqual([1, ['multilingual'], [true, false]]);
    await router.dispose();
    expect(core.live).toBe(0);
  });
});

describeWithCore('on the built engine with the two fixture checkpoints', () => {
  test('English then German states load each checkpoint in turn and hold only one', async () => {
    const models: LayaModel[] = [];
    const load = async (source: CheckpointSource, options?: LoadOptions): Promise<LayaModel> => {
      const model = await loadModelWith(nodeRuntime, source, { ...options, wasm: kWasm });
      models.push(model);
      return model;
    };
    const router = createRouter(load, {
      sources: { english: { directory: kTinyCheckpoint }, multilingual: { directory: kSmallCheckpoint } },
    });
    const first = await router.predict(kEnglishState, kQuestions as never);
    const second = await router.predict(kGermanState, kQuestions as never);
    expect([first.routing.model, second.routing.model]).toEqual(['english', 'multilingual']);
    expect(Object.keys(second).slice(-2)).toEqual(['usage', 'routing']);
    expect([router.loaded, models.map((m) => m.disposed)]).toEqual([['multilingual'], [true, false]]);
    const batch = await router.predictBatchJson([
      { state: kEnglishState, questions: kQuestions as never }, { state: kGermanState, questions: kQuestions as never },
    ]);
    expect(batch).toEqual([await router.predictJson(kEnglishState, kQuestions as never), await router.predictJson(kGermanState, kQuestions as never)]);
    await router.dispose();
  });
});
