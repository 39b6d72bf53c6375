// Python's str behaviour that upstream's language detection depends on, over code points rather
// than UTF-16 units (Python's len and slices count code points). laya-spec-current §11.5, "Unicode behaviour".
//
// Python's `re` `\w` (str patterns) is a character for which str.isalnum() holds, or `_`: the
// letter and number categories, and no combining marks, so `[^\W\d_]+` splits `Влади́мир` at the
// accent. `\d` is category Nd. The JavaScript classes below spell exactly that.
import combiningData from './combining-classes.json' with { type: 'json' };

/** The members of Python's `\w`, to be placed inside a character class. */
export const kWordMembers = String.raw`\p{L}\p{N}_`;
/** Python `\w`. */
export const kWordChar = `[${kWordMembers}]`;
/** Python `[^\W\d_]`: a letter or a letter-like numeral (Nl, No). */
export const kLetterChar = String.raw`[\p{L}\p{Nl}\p{No}]`;
/** Python `[^\W_]`: a letter or any number. */
export const kAlnumChar = String.raw`[\p{L}\p{N}]`;

const kAlpha = /\p{L}/u;
const kUpper = /\p{Uppercase}/u;
const kLower = /\p{Lowercase}/u;
const kTitle = /\p{Lt}/u;

/** Python `len(s)`. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/** Python `s[:n]` for n >= 0. */
export function pyHead(s: string, n: number): string {
  if (n <= 0) return '';
  if (s.length <= n) return s;               // fewer UTF-16 units than n means fewer code points too
  let units = 0;
  let count = 0;
  for (const ch of s) {
    if (count === n) break;
    units += ch.length;
    count += 1;
  }
  return s.slice(0, units);
}

/** Python `ch.isalpha()` for one code point: the letter categories L*. */
export function isAlpha(ch: string): boolean {
  return kAlpha.test(ch);
}

/** Python `ch.isupper()` for one code point (the Uppercase property). */
export function isUpperChar(ch: string): boolean {
  return kUpper.test(ch);
}

/** Python `ch.islower()` for one code point (the Lowercase property). */
export function isLowerChar(ch: string): boolean {
  return kLower.test(ch);
}

/** Python `s.isupper()`: no lowercase or titlecase character, and at least one uppercase one. */
export function isUpper(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (kLower.test(ch) || kTitle.test(ch)) return false;
    if (kUpper.test(ch)) cased = true;
  }
  return cased;
}

/**
 * Python `s.lower()`. JavaScript's toLowerCase applies the same full, locale-free mappings,
 * including 'İ' -> 'i' + U+0307 (two code points) and the final sigma.
 */
export function pyLower(s: string): string {
  return s.toLowerCase();
}

/** The number of code points of s for which Python's isalpha() holds. */
export function countAlpha(s: string): number {
  let n = 0;
  for (const ch of s) if (kAlpha.test(ch)) n += 1;
  return n;
}

const kCombiningRanges = combiningData.nonZeroCombiningClassRanges as [number, number][];

/** Python `unicodedata.combining(ch) != 0` (canonical combining class), by binary search. */
export function isCombining(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  let lo = 0;
  let hi = kCombiningRanges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = kCombiningRanges[mid] as [number, number];
    if (cp < first) hi = mid - 1;
    else if (cp > last) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Python `text.split()` with no argument: runs of whitespace separate, none are kept. */
export function pySplitWhitespace(text: string): string[] {
  return text.split(kPyWhitespaceRun).filter((part) => part.length > 0);
}

/** Python `text.strip()` with no argument. */
export function pyStrip(text: string): string {
  return text.replace(kPyLeadingSpace, '').replace(kPyTrailingSpace, '');
}

// Python's str.isspace(): bidirectional class WS, B or S, or category Zs. That is JavaScript's \s
// without U+FEFF (a Cf, not a space to Python) plus U+001C..U+001F (class B / S to Python).
const kPySpaceClass = String.raw`[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]`;
const kPyWhitespaceRun = new RegExp(`${kPySpaceClass}+`, 'u');
const kPyLeadingSpace = new RegExp(`^${kPySpaceClass}+`, 'u');
const kPyTrailingSpace = new RegExp(`${kPySpaceClass}+$`, 'u');
