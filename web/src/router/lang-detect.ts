// Language and script detection for routing: upstream's `lang.analyse(state)` (laya-spec-current §11.5), the
// same dict key for key and float for float. The word lists, script ranges and thresholds are data
// in lang-data.json (provenance in README.md beside it), which a C++ port can read as it is.
//
// The Latin-script guess is a stopword and diacritic heuristic with upstream's exact rules,
// including their known gaps: a port that "fixed" one would stop giving upstream's answer.
import langData from './lang-data.json' with { type: 'json' };
import { pyRound, pyRoundToInt } from './python-format.js';
import {
  countAlpha, isAlpha, isCombining, isLowerChar, isUpper, isUpperChar, kAlnumChar, kLetterChar,
  kWordChar, kWordMembers, pyHead, pyLen, pyLower, pySplitWhitespace, pyStrip,
} from './python-text.js';

/** A state as routing reads it: JSON-like values, with bytes read as UTF-8. */
export type RoutableState = unknown;

/** `lang.analyse(state)`, keys in upstream's order. */
export interface Detection {
  script: string;
  script_profile: Record<string, number>;
  language: string | null;
  is_english: boolean;
  language_undecided: boolean;
  diacritic_rate: number;
  non_latin_fraction: number;
  mixed_segment: string | null;
}

const kLimits = langData.thresholds;
const kScriptRanges = langData.scriptRanges as [string, [number, number][]][];
const kLatinRanges = langData.latinLetterRanges as [number, number][];
const kStop = new Map<string, Set<string>>(
  Object.entries(langData.stopwords).map(([lang, words]) => [lang, new Set(words)]));
const kShortSwedish = new Set(langData.shortSwedishWords);
const kDiacritics = new Set(Array.from(langData.nonEnglishDiacritics));
const kNordicOverlap = new Set(langData.nordicOverlapWords);

// Derived exactly as upstream derives them: a word two lists claim (plus the Nordic overlap words)
// names no language by itself; English words no other list claims carry the English rescue; a
// collision word counts once however often it repeats.
const kSharedWords = sharedWords();
const kEnglishOnly = new Set([...(kStop.get('en') ?? [])].filter((w) => !kSharedWords.has(w)));
const kCollisionWords = new Set(langData.englishCollisionWords.filter(
  (w) => [...kStop].some(([lang, words]) => lang !== 'en' && words.has(w))));

function sharedWords(): Set<string> {
  const seen = new Map<string, number>();
  for (const words of kStop.values()) for (const w of words) seen.set(w, (seen.get(w) ?? 0) + 1);
  const shared = new Set([...seen].filter(([, n]) => n > 1).map(([w]) => w));
  for (const w of kNordicOverlap) shared.add(w);
  return shared;
}

// upstream's regexes, in Python's Unicode meaning (see python-text.ts)
const kWord = new RegExp(`${kLetterChar}+`, 'gu');
const kIdentifier = new RegExp(`(?<![${kWordMembers}-])[${kWordMembers}-]*(?:[.@][${kWordMembers}-]+)+`, 'gu');
const kCodeLine = new RegExp(`[=;{}\\[\\]]|${kWordChar}\\(`, 'u');
const kJoined = new RegExp(`${kAlnumChar}[._/\\\\]${kAlnumChar}`, 'u');
const kLetterRun = new RegExp(`${kLetterChar}{2,}`, 'gu');

function findWords(text: string): string[] {
  return text.match(kWord) ?? [];
}

function blankCapitalRuns(text: string): string {
  return text.replace(kLetterRun, (run) => (isUpper(run) ? ' ' : run));
}

// ---------------------------------------------------------------------------------- the text

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** The string leaves of a state, depth first; keys are ignored (they are usually English). */
export function stateLeaves(state: RoutableState, depth = 0): string[] {
  if (depth > kLimits.maxDepth || state === null || state === undefined) return [];
  if (typeof state === 'string') return [state];
  if (isBytes(state)) {
    try {
      return [new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(state)];
    } catch {
      return [];
    }
  }
  const values = state instanceof Map ? [...state.values()]
    : Array.isArray(state) ? state
      : typeof state === 'object' ? Object.values(state as Record<string, unknown>) : [];
  return values.flatMap((value) => stateLeaves(value, depth + 1));
}

/** The text detection reads: the leaves joined with spaces, cut to `maxChars` code points. */
export function stateText(state: RoutableState, maxChars: number = kLimits.maxChars): string {
  const parts: string[] = [];
  let budget = maxChars;
  for (const leaf of stateLeaves(state)) {
    if (budget <= 0) break;
    const length = pyLen(leaf);
    if (length > budget) {
      parts.push(pyHead(leaf, budget));
      break;
    }
    parts.push(leaf);
    budget -= length + 1;
  }
  return pyHead(parts.join(' '), maxChars);
}

// ---------------------------------------------------------------------------------- scripts

function inRanges(cp: number, ranges: [number, number][]): boolean {
  return ranges.some(([lo, hi]) => lo <= cp && cp <= hi);
}

/** The named non-Latin script of one character, or null (Latin and unclaimed characters). */
function namedScript(ch: string): string | null {
  const cp = ch.codePointAt(0) ?? 0;
  if (inRanges(cp, kLatinRanges)) return null;
  for (const [name, ranges] of kScriptRanges) if (inRanges(cp, ranges)) return name;
  return null;
}

/** Letters per script in first-seen order, Latin inserted last (it loses ties). */
function scriptCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let latin = 0;
  for (const ch of text) {
    if (!isAlpha(ch)) continue;
    if (inRanges(ch.codePointAt(0) ?? 0, kLatinRanges)) {
      latin += 1;
      continue;
    }
    const name = namedScript(ch) ?? 'other';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  counts.set('latin', latin);
  return counts;
}

function firstLargest(entries: Iterable<[string, number]>): string | null {
  let best: string | null = null;
  let bestValue = -Infinity;
  for (const [name, value] of entries) {
    if (value > bestValue) {
      best = name;
      bestValue = value;
    }
  }
  return best;
}

/** Upstream's `detect_script`: the plurality script of the letters, or "unknown" (no promotion). */
export function detectScript(text: string): string {
  return scriptFromCounts(scriptCounts(text));
}

function scriptFromCounts(counts: Map<string, number>): string {
  if (![...counts.values()].some((n) => n > 0)) return 'unknown';
  return firstLargest(counts) ?? 'unknown';
}

function profileFromCounts(counts: Map<string, number>): Record<string, number> {
  let total = 0;
  for (const n of counts.values()) total += n;
  const profile: Record<string, number> = {};
  if (!total) return profile;
  const latin = counts.get('latin') ?? 0;
  if (latin) profile['latin'] = latin / total;
  for (const [name, n] of counts) if (name !== 'latin' && n) profile[name] = n / total;
  return profile;
}

function nonLatinCarries(fraction: number, letters: number): boolean {
  return fraction >= kLimits.nonLatinFraction
    || (fraction >= kLimits.nonLatinMinFraction && letters >= kLimits.nonLatinMinLetters);
}

/**
 * Same-script runs of non-Latin characters that read as words: two or more characters, not
 * starting uppercase (a name), combining marks skipped (they never split a word).
 */
function nonLatinWords(text: string): string[] {
  const runs: string[] = [];
  let current = '';
  let script: string | null = null;
  for (const ch of text) {
    if (isCombining(ch)) continue;
    const s = namedScript(ch);
    if (s !== null && s === script) {
      current += ch;
      continue;
    }
    if (current) runs.push(current);
    if (s !== null) {
      current = ch;
      script = s;
    } else {
      current = '';
      script = null;
    }
  }
  if (current) runs.push(current);
  return runs.filter((w) => pyLen(w) >= 2 && !isUpperChar(Array.from(w)[0] ?? ''));
}

// ---------------------------------------------------------------------------------- Latin text

interface LatinProfile {
  language: string | null;
  englishHits: number;
  diacriticRate: number;
  looksNonEnglish: boolean;
}

function intersects(words: Set<string>, set: Set<string>): boolean {
  for (const w of words) if (set.has(w)) return true;
  return false;
}

function englishRescued(words: string[], diacriticRate: number): boolean {
  if (diacriticRate >= kLimits.englishRescueDiacriticRate) return false;
  const distinct = new Set(words);
  if ([...distinct].filter((w) => kEnglishOnly.has(w)).length < 2) return false;
  const accented = [...distinct].filter((w) => Array.from(w).some((ch) => kDiacritics.has(ch)));
  return accented.length <= 1;
}

/** The evidence behind the Latin-script guess (upstream's `latin_profile`). */
function latinProfile(text: string): LatinProfile {
  // 'İ'.lower() is 'i' + a combining dot, which matches no word list
  const words = findWords(pyLower(text.replace(kIdentifier, ' ').replaceAll('İ', 'i')));
  const lowered = pyLower(text);
  let diacritics = 0;
  let length = 0;
  for (const ch of lowered) {
    length += 1;
    if (kDiacritics.has(ch)) diacritics += 1;
  }
  const diacriticRate = diacritics / Math.max(1, length);
  const nonEnglish = diacriticRate >= kLimits.nonEnglishDiacriticRate;
  const distinct = new Set(words);
  const nordicOverlap = intersects(distinct, kNordicOverlap) && !intersects(distinct, kEnglishOnly);
  if (words.length > 1 && words.length < kLimits.minWords && intersects(distinct, kShortSwedish)) {
    return { language: 'sv', englishHits: 0, diacriticRate, looksNonEnglish: nonEnglish };
  }
  if (words.length < kLimits.minWords) {
    return { language: null, englishHits: 0, diacriticRate, looksNonEnglish: nonEnglish || nordicOverlap };
  }

  const occurrences = new Map<string, number>();
  for (const w of words) occurrences.set(w, (occurrences.get(w) ?? 0) + 1);
  const scores = new Map<string, number>();
  for (const [lang, list] of kStop) {
    let score = 0;
    for (const [w, n] of occurrences) if (list.has(w)) score += kCollisionWords.has(w) ? 1 : n;
    scores.set(lang, score);
  }
  const en = scores.get('en') ?? 0;
  // Only a language that matched a word no other list claims may be named.
  const evidenced: [string, number][] = [];
  for (const [lang, score] of scores) {
    if (lang === 'en') continue;
    const list = kStop.get(lang) as Set<string>;
    if ([...distinct].some((w) => list.has(w) && !kSharedWords.has(w))) evidenced.push([lang, score]);
  }
  const bestLang = firstLargest(evidenced);
  const best = bestLang === null ? 0 : (scores.get(bestLang) ?? 0);

  let language: string | null = null;
  if (bestLang && best >= Math.max(2, en + 2)) {
    language = bestLang;
  } else if (bestLang === 'sv' && words.includes('inte') && words.includes('kan')
    && ['kan', 'jag', 'vi'].includes(words[0] ?? '') && en <= 1) {
    language = bestLang;
  } else if (bestLang && nonEnglish && best >= Math.max(2, en)) {
    language = bestLang;
  } else if (en && (!nonEnglish || englishRescued(words, diacriticRate))) {
    language = 'en';
  }
  return {
    language, englishHits: en, diacriticRate,
    looksNonEnglish: nonEnglish || (language === null && nordicOverlap),
  };
}

/** Upstream's `guess_latin_language`: a language code for Latin text, or null when undecided. */
export function guessLatinLanguage(text: string): string | null {
  return latinProfile(text).language;
}

/** A segment with an upper-case character and no lower-case one. */
function isShouted(text: string): boolean {
  let upper = false;
  for (const ch of text) {
    if (isLowerChar(ch)) return false;
    if (!upper && isUpperChar(ch)) upper = true;
  }
  return upper;
}

/** Whether an all-caps line's evidence for `lang` is more than acronym-shaped tokens. */
function shoutedEvidence(tokens: string[], lang: string, diacriticRate: number): boolean {
  if (!tokens.some((t) => pyLen(t) >= kLimits.shoutedMinWord)) return false;
  if (diacriticRate >= kLimits.nonEnglishDiacriticRate) return true;
  const list = kStop.get(lang) ?? new Set<string>();
  const matched = new Set(tokens.map(pyLower).filter((t) => list.has(t)));
  return [...matched].some((w) => pyLen(w) >= kLimits.shoutedMinStopword);
}

/** The language one non-code line names, when it names a foreign one with two distinct words. */
function namedProseLanguage(segment: string): string | null {
  if (!pyStrip(segment) || kCodeLine.test(segment)) return null;
  let prose = pySplitWhitespace(segment).filter((token) => !kJoined.test(token)).join(' ');
  const shouted = isShouted(prose);
  if (!shouted) prose = blankCapitalRuns(prose);
  const tokens = findWords(prose);
  if (tokens.length < kLimits.minWords) return null;
  const profile = latinProfile(prose);
  const lang = profile.language;
  if (lang === null || lang === 'en') return null;
  if (shouted && !shoutedEvidence(tokens, lang, profile.diacriticRate)) return null;
  const list = kStop.get(lang) ?? new Set<string>();
  if (new Set(tokens.map(pyLower).filter((t) => list.has(t))).size < 2) return null;
  return lang;
}

/** The first line or field, within `maxChars` code points read, that names a foreign language. */
function nonEnglishSegment(state: RoutableState, maxChars: number = kLimits.maxChars): [string, string] | null {
  let seen = 0;
  for (const leaf of stateLeaves(state)) {
    for (const line of leaf.split('\n')) {
      if (seen >= maxChars) return null;
      const segment = pyHead(line, maxChars - seen);
      seen += pyLen(segment);
      const lang = namedProseLanguage(segment);
      if (lang) return [lang, pyStrip(segment)];
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------- analyse

/** Detection for one flattened string, without the per-line scans. */
function analyseText(text: string): Detection {
  const counts = scriptCounts(text);
  const profile = profileFromCounts(counts);
  let script = scriptFromCounts(counts);
  const hasProfile = Object.keys(profile).length > 0;
  const nonLatin = hasProfile ? pyRound(1.0 - (profile['latin'] ?? 0.0), 4) : 0.0;
  const nonLatinLetters = pyRoundToInt(nonLatin * countAlpha(text));
  if (script === 'latin' && nonLatinWords(text).length > 0 && nonLatinCarries(nonLatin, nonLatinLetters)) {
    script = firstLargest(Object.entries(profile).filter(([name]) => name !== 'latin')) ?? script;
  }
  if (script === 'unknown') {
    return {
      script: 'unknown', script_profile: profile, language: null, is_english: true,
      language_undecided: true, diacritic_rate: 0.0, non_latin_fraction: 0.0, mixed_segment: null,
    };
  }
  if (script !== 'latin') {
    return {
      script, script_profile: profile, language: null, is_english: false,
      language_undecided: true, diacritic_rate: 0.0, non_latin_fraction: nonLatin, mixed_segment: null,
    };
  }
  const latin = latinProfile(text);
  let lang = latin.language;
  // An acronym is not a word: a shouted text must show more than acronym-shaped evidence, and in
  // mixed-case text short all-caps runs are blanked before the verdict is taken again. Neither bar
  // applies when a caseless script carries the state.
  if (lang !== null && lang !== 'en' && !nonLatinCarries(nonLatin, nonLatinLetters)) {
    if (isShouted(text)) {
      if (!shoutedEvidence(findWords(text), lang, latin.diacriticRate)) lang = null;
    } else {
      const caps = (text.match(kLetterRun) ?? []).filter(isUpper);
      if (caps.length > 0 && !caps.some((run) => pyLen(run) >= kLimits.shoutedMinWord)) {
        const blanked = blankCapitalRuns(text);
        if (blanked !== text) lang = latinProfile(blanked).language;
      }
    }
  }
  const undecided = lang === null;
  return {
    script: 'latin', script_profile: profile, language: lang,
    is_english: lang === 'en' || (undecided && !latin.looksNonEnglish),
    language_undecided: undecided,
    diacritic_rate: pyRound(latin.diacriticRate, 4),
    non_latin_fraction: nonLatin, mixed_segment: null,
  };
}

/** A string value that is itself not safe for the English checkpoint, else null. */
function leafNonEnglish(leaf: string): Detection | null {
  let bestLetters = -1;
  let best: Detection | null = null;
  for (const line of leaf.split('\n')) {
    // four words need seven characters and ten letters ten, so a shorter line cannot be selected
    if (pyLen(line) < kLimits.minLeafLineChars) continue;
    const sample = pyHead(line, kLimits.maxChars);
    if (!pyStrip(sample) || kCodeLine.test(sample)) continue;
    const detection = analyseText(sample);
    if (detection.is_english) continue;
    const named = detection.language !== null && detection.language !== 'en'
      && namedProseLanguage(sample) !== null;
    if (!named) {
      if (detection.script !== 'latin' && detection.script !== 'unknown') {
        if (!(nonLatinWords(sample).length > 0 && countAlpha(sample) >= kLimits.nonLatinMinLetters)) continue;
      } else if (!(detection.diacritic_rate >= kLimits.nonEnglishDiacriticRate
        && findWords(sample).length >= kLimits.minWords)) {
        continue;
      }
    }
    const letters = countAlpha(sample);
    if (letters > bestLetters) {
      bestLetters = letters;
      best = detection;
    }
  }
  return best;
}

/** Upstream's `lang.analyse(state)`: script, language and whether the English checkpoint can read it. */
export function analyse(state: RoutableState): Detection {
  let result = analyseText(stateText(state));
  if (result.script === 'latin' && result.is_english) {
    // A mostly English state can still carry a line or field in another language, and that part
    // is usually the one a question is about.
    const leaves = stateLeaves(state);
    if (leaves.length > 1 || leaves.some((leaf) => leaf.includes('\n'))) {
      const found = nonEnglishSegment(state);
      if (found) {
        const [language, segment] = found;
        result = { ...result, language, is_english: false, language_undecided: false, mixed_segment: segment };
      }
    }
  }
  // A plain string was read whole; a structured state can hide a message past the segment budget.
  if (typeof state === 'string' || isBytes(state) || state === null || state === undefined || !result.is_english) {
    return result;
  }
  let bestLetters = -1;
  let best: Detection | null = null;
  for (const leaf of stateLeaves(state)) {
    const detection = leafNonEnglish(leaf);
    if (detection === null) continue;
    const letters = countAlpha(pyHead(leaf, kLimits.maxChars));
    if (letters > bestLetters) {
      bestLetters = letters;
      best = detection;
    }
  }
  if (best === null) return result;
  return { ...result, language: best.language, is_english: false, language_undecided: best.language_undecided };
}
