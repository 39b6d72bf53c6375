// The options of predict / prepare / answer as the engine receives them: camelCase names become
// upstream's keyword names, undefined options are left out, and what JSON cannot carry is refused here.
import { encodePredictOptions } from '../../web/src/request.js';

describe('encodePredictOptions', () => {
  test('no options send an empty object, so the engine picks its default shape', () => {
    expect(encodePredictOptions(undefined, 'predict')).toBe('{}');
    expect(encodePredictOptions({}, 'predict')).toBe('{}');
  });

  test('every shape name is accepted and anything else is refused naming the three', () => {
    for (const shape of ['current', '0.3.21', '0.3.7'] as const) {
      expect(encodePredictOptions({ shape }, 'predict')).toBe(`{"shape":"${shape}"}`);
    }
    expect(() => encodePredictOptions({ shape: '0.4' as never }, 'predict')).toThrow(
      'predict: shape must be "current", "0.3.21" or "0.3.7", got "0.4"');
  });

  test('upstream options travel under upstream keyword names', () => {
    const sent = JSON.parse(encodePredictOptions({
      shape: 'current', minConfidence: { 'choice:3-5': 0.6, default: 0.4 }, maxLen: 256, headMaxLen: 64,
      lang: 'de-AT', langTemperatures: { de: { temperature: [1, 1.5, 2] }, fr: null }, stateTokenCounts: false,
    }, 'predict'));
    expect(sent).toEqual({
      shape: 'current', min_confidence: { 'choice:3-5': 0.6, default: 0.4 }, max_len: 256, head_max_len: 64,
      lang: 'de-AT', lang_temperatures: { de: { temperature: [1, 1.5, 2] }, fr: null }, state_token_counts: false,
    });
  });

  test('a min_confidence JSON cannot carry is refused with upstream\'s message', () => {
    expect(() => encodePredictOptions({ minConfidence: Number.NaN }, 'predict')).toThrow(
      'min_confidence must be a float in [0.0, 1.0], got nan');
    expect(() => encodePredictOptions({ minConfidence: -Infinity }, 'predict')).toThrow(
      'min_confidence must be a float in [0.0, 1.0], got -inf');
  });
});
