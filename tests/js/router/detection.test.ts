// Detection on states worked by hand from the rules of laya-spec-current §11.5 (each expectation's arithmetic
// is in the comment beside it): mixed scripts, JSON states, short texts, all-caps lines, code.
import { describe, expect, test } from '@jest/globals';
import { analyse, stateText } from '../../../web/src/router/lang-detect.js';
import { isCombining, pyLen } from '../../../web/src/router/python-text.js';

const kEnglishOnlyLatin = { script: 'latin', script_profile: { latin: 1.0 }, non_latin_fraction: 0.0, mixed_segment: null };

describe('mixed scripts', () => {
  test('a non-Latin plurality names its script and reports the fractions at full precision', () => {
    // 7 Armenian letters and 3 Latin ones: latin 3/10, armenian 7/10, Latin listed first
    expect(analyse('Հայերեն abc')).toEqual({
      script: 'armenian', script_profile: { latin: 0.3, armenian: 0.7 }, language: null, is_english: false,
      language_undecided: true, diacritic_rate: 0.0, non_latin_fraction: 0.7, mixed_segment: null,
    });
  });

  test('a Han word promotes a Latin-plurality text when its share carries', () => {
    // Order + status = 11 Latin letters, 9 Han; round(1 - 0.55, 4) = 0.45 >= 0.2, and the Han run is a word
    expect(analyse('Order 5521 status: 我们的订单还没有到')).toEqual({
      script: 'han', script_profile: { latin: 0.55, han: 0.45 }, language: null, is_english: false,
      language_undecided: true, diacritic_rate: 0.0, non_latin_fraction: 0.45, mixed_segment: null,
    });
  });

  test('the key order is upstream\'s', () => {
    expect(Object.keys(analyse('anything at all'))).toEqual([
      'script', 'script_profile', 'language', 'is_english', 'language_undecided', 'diacritic_rate',
      'non_latin_fraction', 'mixed_segment']);
  });
});

describe('JSON states', () => {
  test('a French field beside English ones is reported as the mixed segment', () => {
    // whole text: en 3 (please, the, on) against fr 4 (je, peux, pas, mon) misses the en+2 margin: English;
    // the line on its own has fr 4, en 0 and two distinct French words
    expect(analyse({
      subject: 'Refund request',
      body: 'Please refund the duplicate charge on invoice 4411 today.',
      customer_note: 'Je ne peux pas acceder a mon compte',
    })).toEqual({
      ...kEnglishOnlyLatin, language: 'fr', is_english: false, language_undecided: false, diacritic_rate: 0.0,
      mixed_segment: 'Je ne peux pas acceder a mon compte',
    });
  });

  test('keys are not read, numbers and booleans contribute nothing', () => {
    expect(stateText({ nachricht: 'hello', count: 3, ok: true, nested: [null, 'world'] })).toBe('hello world');
  });

  test('a value nested deeper than six levels is not read', () => {
    const deep = { a: { b: { c: { d: { e: { f: 'six' } } } } } };
    const deeper = { a: { b: { c: { d: { e: { f: { g: 'seven' } } } } } } };
    expect([stateText(deep), stateText(deeper)]).toEqual(['six', '']);
  });

  test('bytes are read as UTF-8, and bytes that are not UTF-8 are skipped', () => {
    const german = new TextEncoder().encode('Mein Konto wurde zweimal belastet');
    expect(analyse({ message: german }).language).toBe('de');
    expect(stateText({ a: new Uint8Array([0xff, 0xfe]), b: 'ok' })).toBe('ok');
  });

  test('the text is cut at 4000 code points, not UTF-16 units', () => {
    const astral = '😀'.repeat(5000);
    expect(pyLen(stateText(astral))).toBe(4000);
  });
});

describe('short texts', () => {
  test('one plain word is undecided and not flagged non-English', () => {
    expect(analyse('Merci')).toEqual({
      ...kEnglishOnlyLatin, language: null, is_english: true, language_undecided: true, diacritic_rate: 0.0,
    });
  });

  test('one word with non-English letters is undecided but not English', () => {
    // grüße: ü and ß are 2 of 5 characters
    expect(analyse('Grüße')).toEqual({
      ...kEnglishOnlyLatin, language: null, is_english: false, language_undecided: true, diacritic_rate: 0.4,
    });
  });

  test('İ lowers to two code points, and the rate counts them', () => {
    // 'İş'.lower() is i + U+0307 + ş: one listed letter in three characters
    expect(analyse('İş').diacritic_rate).toBe(0.3333);
  });
});

describe('all-caps lines', () => {
  test('a line of acronyms alone names no language', () => {
    // fr would win 4-0 on mon/des/est/la, but no token has five letters
    expect(analyse('MON DES EST LA')).toEqual({
      ...kEnglishOnlyLatin, language: null, is_english: true, language_undecided: true, diacritic_rate: 0.0,
    });
  });

  test('shouted prose with long stopwords keeps its language', () => {
    // pt: quero, meu, agora; QUERO and AGORA are stopwords of five letters
    expect(analyse('QUERO MEU DINHEIRO DE VOLTA AGORA')).toEqual({
      ...kEnglishOnlyLatin, language: 'pt', is_english: false, language_undecided: false, diacritic_rate: 0.0,
    });
  });

  test('short capital runs in mixed-case text are blanked before the verdict', () => {
    // without MON DES EST LA only "please see" is left: under four words, undecided
    expect(analyse('Please see MON DES EST LA')).toMatchObject({ language: null, is_english: true, language_undecided: true });
  });

  test('an emphasised word of five letters is not blanked', () => {
    // es: quiero, mi, por; PEDIDO has six letters, so no run is blanked
    expect(analyse('quiero cancelar mi PEDIDO POR FAVOR')).toMatchObject({ language: 'es', is_english: false });
  });
});

describe('identifiers and code lines', () => {
  test('a code line and a dotted identifier do not read as Portuguese', () => {
    // os.path.join is one identifier; the line holds a call `n(`; please + this make it English
    expect(analyse('Please check this:\nif x: os.path.join(a, b)\nThanks')).toEqual({
      ...kEnglishOnlyLatin, language: 'en', is_english: true, language_undecided: false, diacritic_rate: 0.0,
    });
  });

  test('unicodedata.combining: accents combine, a Devanagari vowel sign does not', () => {
    expect(['\u0301', '\u094d', '\u0941', 'a'].map(isCombining)).toEqual([true, true, false, false]);
  });
});
