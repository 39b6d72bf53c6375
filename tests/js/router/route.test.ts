// Routing precedence and reasons, worked by hand from laya-spec-current §11.1-11.4.
import { describe, expect, test } from '@jest/globals';
import { route } from '../../../web/src/router/route.js';
import { canonicalName, resolveName } from '../../../web/src/router/registry.js';

const kInvoiceQuestions = {
  discrepancy_severity: {}, disposition: {}, duplicate: {}, matches_order: {}, urgency: {},
};
const kEnglish = 'Please refund the duplicate charge on invoice 4411 today.';

describe('precedence', () => {
  test('an explicit model wins over task, lang and detection', () => {
    expect(route('मुझसे दो बार', { model: 'ML', task: 'typed_decisions', lang: 'en' })).toEqual({
      model: 'multilingual', repo: 'convaiinnovations/laya/multilingual', reason: "explicit model='ML'",
      detection: null, workflow: null,
    });
  });

  test('a task wins over lang, and typed-decisions is matched in any case and dash', () => {
    expect(route(kEnglish, { task: 'Typed-Decisions', lang: 'de' })).toEqual({
      model: 'typed-decisions', repo: 'convaiinnovations/laya/typed-decisions',
      reason: "explicit task='Typed-Decisions'", detection: null, workflow: null,
    });
  });

  test('a workflow\'s question ids route to typed-decisions only when asked', () => {
    expect(route(kEnglish, { questions: kInvoiceQuestions, lang: 'de' }, { autoTaskDetection: true })).toEqual({
      model: 'typed-decisions', repo: 'convaiinnovations/laya/typed-decisions',
      reason: "question ids match the 'invoice_processing' typed-decisions workflow", detection: null,
      workflow: 'invoice_processing',
    });
  });

  test('lang routes next, and still reports the matching workflow', () => {
    expect(route(kEnglish, { questions: kInvoiceQuestions, lang: 'pt-BR' })).toEqual({
      model: 'multilingual', repo: 'convaiinnovations/laya/multilingual', reason: "explicit lang='pt-BR'",
      detection: null, workflow: 'invoice_processing',
    });
  });

  test('a lang naming no language falls through to the per-call hint, which beats the Router\'s', () => {
    const decision = route('Hola', { lang: 'C.UTF-8', langGuess: 'en' }, { langGuess: 'de' });
    expect(decision.reason).toBe('lang_guess: the caller identified this as English text');
    expect(decision.model).toBe('english');
  });

  test('the Router\'s hint answers when the per-call one abstains', () => {
    const decision = route(kEnglish, { langGuess: () => null }, { langGuess: (state) => (state === kEnglish ? 'fr' : null) });
    expect([decision.model, decision.reason])
      .toEqual(['multilingual', 'Router(lang_guess=...): the caller identified this as non-English text']);
  });

  test('detection decides last, and its detection is reported', () => {
    const decision = route(kEnglish);
    expect([decision.model, decision.reason, decision.detection?.language]).toEqual(['english', 'English Latin text', 'en']);
  });

  test('the routing object keeps upstream\'s key order', () => {
    expect(Object.keys(route(kEnglish))).toEqual(['model', 'repo', 'reason', 'detection', 'workflow']);
  });
});

describe('detection reasons', () => {
  test('no letters take the default, multilingual unless configured', () => {
    expect(route('12345').reason).toBe('no letters detected in state; using default (multilingual)');
    expect(route('12345', {}, { default: 'en' })).toMatchObject({
      model: 'english', reason: 'no letters detected in state; using default (english)',
    });
  });

  test('a non-Latin script names its share of letters', () => {
    expect(route('Հայերեն abc').reason)
      .toBe('non-Latin script (armenian, 70% of letters); the English checkpoint cannot read it');
  });

  test('a mixed segment is quoted with repr and cut at 60 characters', () => {
    // upstream's "english ticket + german error log" state, whose segment is the middle line
    const state = 'The nightly sync to the Munich server keeps failing and we lose the whole batch.\n'
      + 'Fehler: Die Verbindung zum Server wurde unterbrochen, bitte versuchen Sie es spaeter noch einmal\n'
      + 'Please check the firewall rules on your side.';
    expect(route(state).reason).toBe("Latin script, mostly English, but a line or field reads as 'de' "
      + "('Fehler: Die Verbindung zum Server wurde unterbrochen, bitte '); the English checkpoint cannot read it");
  });

  test('a named language is quoted with repr', () => {
    expect(route('QUERO MEU DINHEIRO DE VOLTA AGORA').reason).toBe("Latin script but language looks like 'pt', not English");
  });

  test('an unnamed language reports its rate with Python\'s half-to-even %.0f', () => {
    // ã is 1 of 8 characters: 12.5 prints as 12; three of eight: 37.5 prints as 38
    expect(route('ãbcdefgh').reason)
      .toBe('Latin script, language not identified but 12% non-English letters; not safe for the English checkpoint');
    expect(route('ãããbcdef').reason)
      .toBe('Latin script, language not identified but 38% non-English letters; not safe for the English checkpoint');
  });

  test('undecided Latin text takes the default', () => {
    expect(route('Merci', {}, { default: 'english' })).toMatchObject({
      model: 'english',
      reason: 'Latin script, language not identified and no non-English letters; using default (english)',
    });
  });
});

describe('names', () => {
  test('aliases resolve after trimming and lowercasing', () => {
    expect([' EN ', 'laya', 'default', 'multi', 'Laya-Multilingual', 'typed', 'decisions'].map(canonicalName))
      .toEqual(['english', 'english', 'english', 'multilingual', 'multilingual', 'typed-decisions', 'typed-decisions']);
  });

  test('an unknown name is refused with upstream\'s message', () => {
    expect(() => resolveName('nope')).toThrow("unknown model 'nope'; choose one of "
      + "['english', 'multilingual', 'typed-decisions'] (or an alias: ['decisions', 'default', 'en', 'laya', "
      + "'laya-multilingual', 'laya-typed-decisions', 'ml', 'multi', 'typed', 'typed_decisions'])");
  });

  test('a caller\'s checkpoint name must be lowercase letters, digits, dot, dash or underscore', () => {
    expect(() => route(kEnglish, { model: 'x' }, { models: { 'Bad/Name': '/x' } })).toThrow("invalid checkpoint name 'Bad/Name'");
    expect(() => route(kEnglish, {}, { models: { auto: '/x' } })).toThrow("'auto' means automatic routing");
  });
});
