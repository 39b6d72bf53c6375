// A predict request that keeps the tiny fixture checkpoint (d 64, 4 layers) busy for seconds: a
// state of about 500 tokens asked `questions` choice questions, one 512-token row each (about
// 40 to 85 ms of forward per question on one thread of the build machine). The words are the fixture
// tokenizer's own (w5 ... w94), so every one is a single token.

/** A state text that fills the 512-token budget of every row. */
export const kLongState = Array.from({ length: 1200 }, (_, i) => `w${5 + (i % 90)}`).join(' ');

export type ChoiceQuestions = Record<string, { type: 'choice'; instructions: string; criteria: string[] }>;

/** `count` choice questions of three options each. */
export function manyQuestions(count: number): ChoiceQuestions {
  const questions: ChoiceQuestions = {};
  for (let i = 0; i < count; i++) {
    questions[`q${i}`] = { type: 'choice', instructions: `w10 w${11 + (i % 50)}`, criteria: ['w12', 'w13', 'w16'] };
  }
  return questions;
}
