// predictLong, predictTournament and decide over the built module, each checked against upstream's
// rules (laya-spec-current §7, §8, §10) applied by hand here to the answers of plain predict calls:
// the windows a long state is cut into and the answer each question keeps, the rounds a large
// choice goes through, the questions a schema becomes and the values its answers project to.
// (The rules' edge cases and messages are pinned by tests/cpp/decide/{long_state,tournament,structured}_test.cc.)
// The small reference checkpoint's tokenizer is word-level over "w4".."w1023" with no decoder, so
// a window of its ids decodes to its words joined by single spaces.
import { loadModelWith } from '../../web/src/load.js';
import type { LayaModel } from '../../web/src/model.js';
import { nodeRuntime } from '../../web/src/node/node-runtime.js';
import type { Answer, LayaResponse, Question } from '../../web/src/request.js';
import type { AnswerWindow, DecisionResult } from '../../web/src/helper-options.js';
import { kSmallCheckpoint } from './helpers/fixtures.js';
import { describeWithCore, kWasm } from './helpers/real-core.js';

const words = Array.from({ length: 600 }, (_, i) => `w${4 + ((i * 37) % 1000)}`);
const questions: Record<string, Question> = {
  topic: { type: 'choice', instructions: 'w40 w41 w42', criteria: { billing: 'w50 w51', outage: 'w60', other: 'w70 w71 w72' } },
  urgent: { type: 'noul', instructions: 'w80 w81' },
  severity: { type: 'score', instructions: 'w90', criteria: ['1', '2', '3'] },
};

type WindowedAnswer = Answer & { window: AnswerWindow };

describeWithCore('upstream\'s helpers over the built module', () => {
  let model: LayaModel;
  beforeAll(async () => {
    model = await loadModelWith(nodeRuntime, { directory: kSmallCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
  });
  afterAll(() => model.dispose());

  test('predictLong on a state that fits is predict itself with usage.windows 1', async () => {
    const state = words.slice(0, 40).join(' ');
    const alone = await model.predictJson(state, questions, { shape: 'current' });
    expect(await model.predictLongJson(state, questions, { shape: 'current' })).toBe(alone.replace(/}}$/, ', "windows": 1}}'));
  });

  test('predictLong cuts a long state into windows of `window` ids every `stride`, and keeps per question the most confident window\'s answer', async () => {
    const long = await model.predictLong(words.join(' '), questions, { shape: 'current', window: 100, stride: 50 });
    // Windows start at 0, 50, ..., 500 (500 + 100 reaches the 600th id): 11 of them.
    const starts = Array.from({ length: 11 }, (_, j) => j * 50);
    const windows = await model.predictBatch(starts.map((s) => words.slice(s, s + 100).join(' ')), questions, { shape: 'current' });
    for (const [id, question] of Object.entries(questions)) {
      const rank = (r: LayaResponse): number => {
        const a = r.answers[id] as Answer & { noul?: number; answer_confidence: number };
        return question.type === 'noul' ? (a.noul as number) : a.answer_confidence;
      };
      let best = 0;
      windows.forEach((w, j) => { if (rank(w) > rank(windows[best]!)) best = j; });
      const kept = long.answers[id] as WindowedAnswer;
      const { window, ...answer } = kept;
      expect(answer).toEqual(windows[best]!.answers[id]);
      expect(window).toEqual({ index: best, token_start: starts[best], token_end: Math.min(starts[best]! + 100, 600), count: 11 });
    }
    const sum = (key: string): number => windows.reduce((s, w) => s + Number((w.usage as unknown as Record<string, number>)[key]), 0);
    expect(long.usage).toMatchObject({
      input_tokens: sum('input_tokens'), output_tokens: 0, state_tokens: sum('state_tokens'), windows: 11,
      truncated: windows.filter((w) => w.usage.truncated).length,
    });
  });

  test('predictTournament sends a 40-label choice through one round of three groups (0:13, 13:26, 26:40), then asks the finalists', async () => {
    const labels = Array.from({ length: 40 }, (_, i) => `w${200 + i}`);
    const big: Record<string, Question> = {
      pick: { type: 'choice', instructions: 'w40 w41', criteria: labels },
      urgent: { type: 'noul', instructions: 'w80' },
    };
    const state = words.slice(0, 30).join(' ');
    const result = await model.predictTournamentJson(state, big, { shape: 'current', groupSize: 16 });
    const round = await model.predict(state, {
      0: { type: 'choice', instructions: 'w40 w41', criteria: labels.slice(0, 13) },
      1: { type: 'choice', instructions: 'w40 w41', criteria: labels.slice(13, 26) },
      2: { type: 'choice', instructions: 'w40 w41', criteria: labels.slice(26, 40) },
    }, { shape: 'current' });
    const finalists = ['0', '1', '2'].map((g) => (round.answers[g] as Answer & { choice: string }).choice);
    const final = await model.predictJson(state, { ...big, pick: { ...big['pick']!, criteria: finalists } }, { shape: 'current' });
    expect(result).toBe(`${final.slice(0, -1)}, "tournament": {"pick": {"labels": ${JSON.stringify(finalists).replace(/,/g, ', ')}, "n": 40, "rounds": 1}}}`);
  });

  test('decide turns a schema into questions and projects their answers to typed values', async () => {
    const schema = {
      type: 'object',
      properties: {
        team: { enum: ['billing', 'network', true], description: 'w40 w41' },
        urgent: { type: 'boolean', description: 'w80' },
        priority: { type: 'integer', minimum: 2, maximum: 4 },
      },
    };
    const state = words.slice(0, 50).join(' ');
    const details = await model.decide(state, { schema }, { shape: 'current', returnDetails: true }) as DecisionResult;
    // The questions laya-spec-current §10.3 plans: labels str() of the values, default instructions for a property without a description.
    const asked = await model.predict(state, {
      team: { type: 'choice', instructions: 'w40 w41', criteria: { billing: null, network: null, True: null } as never },
      urgent: { type: 'noul', instructions: 'w80' },
      priority: { type: 'score', instructions: 'Score `priority` from 2 to 4', criteria: ['2', '3', '4'] },
    }, { shape: 'current' });
    const team = asked.answers['team'] as Answer & { choice: string };
    const urgent = asked.answers['urgent'] as Answer & { noul: number };
    const priority = asked.answers['priority'] as Answer & { probabilities: Record<string, number> };
    const levels = ['0', '1', '2'].map((i) => priority.probabilities[i] as number);
    expect(details.values).toEqual({
      team: team.choice === 'True' ? true : team.choice,
      urgent: urgent.noul >= 0.5,
      priority: 2 + levels.indexOf(Math.max(...levels)),
    });
    expect(details.answers).toEqual(asked.answers);
    expect(await model.decide(state, { schema }, { shape: 'current' })).toEqual(details.values);
  });

  test('decideBatch answers each state as decide does', async () => {
    const schema = { type: 'object', properties: { urgent: { type: 'boolean' } } };
    const states = [words.slice(0, 10).join(' '), words.slice(10, 30).join(' ')];
    const each = await Promise.all(states.map((s) => model.decide(s, { schema }, { shape: 'current' })));
    expect(await model.decideBatch(states, { schema }, { shape: 'current' })).toEqual(each);
    await expect(model.decideBatch('one state' as never, { schema })).rejects.toThrow('states must be a sequence of states, not str');
  });
});
