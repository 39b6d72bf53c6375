// Regenerates the tokenizer test data in tests/data/tok/ that comes from Hugging Face's own
// implementation: the `tokenizers` npm package (0.23.2, the Rust library's Node binding), which is
// NOT a project dependency. Run by hand:
//   npm install --prefix /tmp/hf tokenizers@0.23.2
//   NODE_PATH=/tmp/hf/node_modules node scripts/gen_tok_hf_fixtures.cjs
// Writes english-hf-corpus.jsonl, metaspace-hf-corpus.jsonl, unicode-classes-hf.txt, nfc-hf.txt
// (see tests/data/tok/README.md). Inputs are drawn from a seeded generator, so reruns are identical.
'use strict';
const fs = require('fs');
const path = require('path');
const hf = require('tokenizers');

const root = path.resolve(__dirname, '..');
const out = (name) => path.join(root, 'tests', 'data', 'tok', name);
const shared = path.resolve(root, '..', 'shared');

let seed = 0x1a7a;
const rand = () => {  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (a) => a[Math.floor(rand() * a.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const cp = (c) => String.fromCodePoint(c);
const isSurrogate = (c) => c >= 0xd800 && c <= 0xdfff;
const randomCp = (lo, hi) => { let c; do { c = int(lo, hi); } while (isSurrogate(c)); return cp(c); };

async function encodeAll(tok, texts) {
  const rows = [];
  for (const text of texts) {
    const e = await tok.encode(text, null, { addSpecialTokens: false });
    rows.push({ text, ids: e.getIds() });
  }
  return rows;
}

// ---- English (ModernBERT) corpus -------------------------------------------------------------
const englishFixed = [
  '', ' ', '  ', '   ', '\n', '\n\n', ' \n ', '\t', '\r\n', 'a', ' a', '  a', '   a', 'a ', 'a  ', 'a   b',
  "it's", "It'S", "we'll", "they're", "I've", "I'm", "he'd", "'s", "''s", "'sup", "don't", " 's",
  'hello world', 'Hello, World!', '  leading', 'trailing  ', 'a\tb', 'a \t b', 'x\u00a0y', 'x\u3000y',
  '[MASK]', ' [MASK]', '  [MASK] ', 'a[MASK]b', '[MASK][MASK]', '[CLS] x [SEP]', '<|endoftext|>',
  '|||EMAIL_ADDRESS|||', 'mail: |||EMAIL_ADDRESS||| ok', '[unused0][unused1]', '<|padding|>', '[UNK]',
  '12345', '3.14159', '1,000,000', '２０２４年', '٣٤٥', 'Ⅻ', '½', '¹²³', '$100', '100%', '...', '!!!???',
  'café', 'cafe\u0301', 'e\u0301\u0323', 'e\u0323\u0301', '\u1100\u1161\u11a8', '한국어', 'ｶﾀｶﾅ',
  '日本語のテキスト', '中文文本', 'Привет мир', 'Γειά σου', 'مرحبا بالعالم', 'שלום', 'नमस्ते', 'สวัสดี',
  '🎉', '👍🏽', '👨‍👩‍👧', '❤️', '🇫🇷', 'a\u200bb', 'a\u200db', '\ufeffbom', '\ufffd', '\u0000', '\u007f',
  'x\u0085y', 'x\u2028y', 'x\u2029y', 'x\u1680y', 'x\u180ey', 'x\u200by', 'x\u2060y', 'Ω', '\u2126', 'Å',
  '\u212b', 'ﬁ', 'Ǆ', 'ǅ', '\u0344', '\u0958', '\u1c89\u1c8a', '\u{105c0}\u{105c1}', '\u{10d40}\u{10d41}',
  '{"key": "value", "n": [1, 2.5, null]}', 'user: hi\nassistant: hello', 'path/to/file.txt',
  'https://example.com/a?b=c&d=e', 'snake_case_name', 'camelCaseName', 'C++ and C#', '<div>html</div>',
];
function englishRandom() {
  const units = [
    () => pick(['the', 'quick', 'brown', 'fox', 'Question', 'option', 'state', 'model', 'laya']),
    () => String(int(0, 99999)), () => pick(['.', ',', '!', '?', ':', ';', '-', '--', '(', ')', '"', "'", '`', '~']),
    () => ' '.repeat(int(1, 30)), () => pick(['\t', '\n', '\r', '\r\n', '\n\n', ' \n', '\u00a0', '\u3000', '\u2003']),
    () => pick(["'s", "'S", "'ll", "'re", "'ve", "'m", "'d", "'t", "'LL"]),
    () => pick(['[MASK]', '[CLS]', '[SEP]', '[PAD]', '<|endoftext|>', '|||EMAIL_ADDRESS|||', '|||PHONE_NUMBER|||',
      '[unused7]', '<|padding|>', '[UNK]', '|||IP_ADDRESS|||']),
    () => randomCp(0xc0, 0x24f), () => pick(['a', 'e', 'o', 'u', 'n']) + randomCp(0x300, 0x36f) + (rand() < 0.5 ? randomCp(0x300, 0x36f) : ''),
    () => randomCp(0x4e00, 0x9fff), () => randomCp(0xac00, 0xd7a3), () => randomCp(0x1100, 0x11ff),
    () => randomCp(0x600, 0x6ff), () => randomCp(0x900, 0x97f), () => randomCp(0xe00, 0xe7f),
    () => randomCp(0x1f300, 0x1faff), () => pick(['\u200d', '\ufe0f', '\u{1f3fd}']), () => randomCp(0, 0xffff),
    () => randomCp(0x10000, 0x10ffff), () => randomCp(0, 0x1f), () => pick(['\ufffd', '\u200b', '\u2060', '\u00ad']),
  ];
  const texts = [];
  for (let i = 0; i < 1500; ++i) {
    let s = '';
    const n = int(1, 40);
    for (let k = 0; k < n; ++k) s += pick(units)();
    texts.push(s);
  }
  texts.push('a'.repeat(5000), ' '.repeat(3000), 'ab'.repeat(2000), '\u00e9'.repeat(1500), '1'.repeat(2000),
    '!'.repeat(2000), ' a'.repeat(1500), '[MASK]'.repeat(300));
  return texts;
}

// ---- Metaspace variants (tests/data/tok/metaspace-split.json rewritten as pre_tokenizer_test does)
function metaspaceVariants() {
  const base = fs.readFileSync(out('metaspace-split.json'), 'utf8');
  return {
    never: base,
    first: base.replace('"prepend_scheme": "never"', '"prepend_scheme": "first"'),
    always: base.replace('"prepend_scheme": "never"', '"prepend_scheme": "always"'),
    no_byte_fallback: base.replace('"byte_fallback": true', '"byte_fallback": false'),
    replace_normalizer: base
      .replace('"normalizer": null', '"normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}')
      .replace(/"pre_tokenizer": \{[^}]*\}/, '"pre_tokenizer": null'),
  };
}
function metaspaceRandom() {
  const units = [() => pick(['hello', 'world', 'level', 'low', 'leading', 'he', 'll', 'o', 'w', 'a', 'd', 'ing']),
    () => ' '.repeat(int(1, 4)), () => pick(['0', '1', '2', ':', '.', '\n']), () => '<mask>',
    () => pick(['<bos>', '<eos>', '<pad>', '<unk>']), () => randomCp(0xa0, 0x2fff), () => randomCp(0x1f300, 0x1f5ff),
    () => pick(['\u2581', '\u2581\u2581', '\t'])];
  const texts = [];
  for (let i = 0; i < 600; ++i) {
    let s = '';
    const n = int(1, 16);
    for (let k = 0; k < n; ++k) s += pick(units)();
    texts.push(s);
  }
  return texts;
}

// ---- Character classes of the ByteLevel split, probed code point by code point ----------------
function unicodeClasses() {
  const p = hf.byteLevelPreTokenizer(false, true);
  const one = (s) => p.preTokenizeString(s).length === 1;
  const runs = [];
  for (let c = 0; c <= 0x10ffff; ++c) {
    if (isSurrogate(c)) continue;
    const ch = cp(c);
    const k = one('a' + ch + 'a') ? 'L' : one('1' + ch + '1') ? 'N' : one('\u3000' + ch + '\u3000') ? 'S'
      : one('!' + ch + '!') ? 'P' : '?';
    const last = runs[runs.length - 1];
    if (last && last[2] === k && last[1] === c - 1) last[1] = c; else runs.push([c, c, k]);
  }
  return runs.map(([a, b, k]) => `${a.toString(16)} ${b.toString(16)} ${k}`).join('\n') + '\n';
}

// ---- NFC: every code point alone and in probes that expose combining classes, compositions and
// Hangul; only the results that differ from the input are written ------------------------------
const nfcProbes = [[[], []], [[0x301], []], [[], [0x334]], [[0x61], [0x301]], [[0x1100], []], [[], [0x1161]],
  [[0xac00], []], [[], [0x11a8]]];
function nfcLines() {
  const n = hf.nfcNormalizer();
  const lines = [];
  nfcProbes.forEach(([pre, post], probe) => {
    let batch = [];
    const flush = () => {
      const strs = batch.map((c) => String.fromCodePoint(...pre, c, ...post));
      const res = n.normalizeString(strs.join('\u0001')).split('\u0001');
      batch.forEach((c, i) => {
        if (res[i] !== strs[i]) lines.push(`${probe} ${c.toString(16)} ${Array.from(res[i], (x) => x.codePointAt(0).toString(16)).join(' ')}`);
      });
      batch = [];
    };
    for (let c = 0; c <= 0x10ffff; ++c) {
      if (isSurrogate(c) || c === 1) continue;
      batch.push(c);
      if (batch.length === 4096) flush();
    }
    flush();
  });
  // Random sequences of starters, marks of many classes, Hangul jamo and precomposed letters.
  const pool = [0x41, 0x61, 0x65, 0x6f, 0x55, 0xc5, 0xe9, 0x1e63, 0x300, 0x301, 0x308, 0x323, 0x327, 0x334, 0x345,
    0x5b0, 0x5bc, 0x64b, 0x651, 0x93c, 0x94d, 0x9bc, 0x9be, 0x9c7, 0x9d7, 0xb47, 0xb3e, 0xb56, 0xb57, 0xbc6, 0xbbe,
    0xcc6, 0xcd5, 0xe38, 0xe48, 0xf71, 0xf72, 0xf74, 0x1100, 0x1112, 0x1161, 0x1175, 0x11a8, 0x11c2, 0xac00, 0xd7a3,
    0x3099, 0x309a, 0x304b, 0x30cf, 0x1d165, 0x1d16e, 0x1d15f, 0x20d2, 0x1dc0, 0x1df6, 0x0344, 0x0f73, 0x1b05, 0x1b35,
    0x11099, 0x110ba, 0x11131, 0x11127, 0x1e94a, 0x10d24];
  for (let i = 0; i < 20000; ++i) {
    const seq = [];
    const len = int(1, 6);
    for (let k = 0; k < len; ++k) seq.push(pick(pool));
    const s = String.fromCodePoint(...seq);
    const r = n.normalizeString(s);
    lines.push(`r ${seq.map((c) => c.toString(16)).join(',')} ${Array.from(r, (x) => x.codePointAt(0).toString(16)).join(' ')}`);
  }
  return lines.join('\n') + '\n';
}

(async () => {
  const english = hf.Tokenizer.fromFile(path.join(shared, 'fixtures/upstream/english/tokenizer/tokenizer.json'));
  const rows = await encodeAll(english, englishFixed.concat(englishRandom()));
  fs.writeFileSync(out('english-hf-corpus.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

  const texts = metaspaceRandom();
  const meta = [];
  for (const [variant, json] of Object.entries(metaspaceVariants())) {
    for (const r of await encodeAll(hf.Tokenizer.fromString(json), texts)) meta.push({ variant, ...r });
  }
  fs.writeFileSync(out('metaspace-hf-corpus.jsonl'), meta.map((r) => JSON.stringify(r)).join('\n') + '\n');

  fs.writeFileSync(out('unicode-classes-hf.txt'), unicodeClasses());
  fs.writeFileSync(out('nfc-hf.txt'), nfcLines());
  console.log(`english ${rows.length} texts, metaspace ${meta.length} rows`);
})();
