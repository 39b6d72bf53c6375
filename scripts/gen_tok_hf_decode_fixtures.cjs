// Regenerates the decoder test data in tests/data/tok/ from Hugging Face's own implementation: the
// `tokenizers` npm package (0.23.2, the Rust library's Node binding), which is NOT a project
// dependency. Run by hand, after gen_tok_hf_fixtures.cjs (the id sequences are cut from its corpora):
//   npm install --prefix /tmp/hf tokenizers@0.23.2
//   NODE_PATH=/tmp/hf/node_modules node scripts/gen_tok_hf_decode_fixtures.cjs
// Writes english-hf-decode.jsonl and metaspace-hf-decode.jsonl (see tests/data/tok/README.md).
// `text` is tokenizer.decode(ids, skipSpecialTokens=false); `cleaned` (English) is that text after
// transformers' clean_up_tokenization, written out here from its Python source: ten str.replace
// calls, which JavaScript's replaceAll matches (one left-to-right pass each).
'use strict';
const fs = require('fs');
const path = require('path');
const hf = require('tokenizers');

const root = path.resolve(__dirname, '..');
const data = (name) => path.join(root, 'tests', 'data', 'tok', name);

let seed = 0xdec0de;
const rand = () => {  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (a) => a[Math.floor(rand() * a.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const readJsonl = (name) => fs.readFileSync(data(name), 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
const writeJsonl = (name, rows) => fs.writeFileSync(data(name), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

const cleanUp = (s) => s.replaceAll(' .', '.').replaceAll(' ?', '?').replaceAll(' !', '!').replaceAll(' ,', ',')
  .replaceAll(" ' ", "'").replaceAll(" n't", "n't").replaceAll(" 'm", "'m").replaceAll(" 's", "'s")
  .replaceAll(" 've", "'ve").replaceAll(" 're", "'re");

// predict_long's scan (laya-spec-current §7.3 item 3): windows of `size` ids every `step` ids.
function windows(ids, size, step) {
  const out = [];
  for (let i = 0; i < ids.length; i += step) {
    out.push(ids.slice(i, i + size));
    if (i + size >= ids.length) break;
  }
  return out;
}

const hasNonAscii = (s) => /[^\x00-\x7f]/.test(s);

function englishIdSequences(corpus, vocabSize, addedIds) {
  const seqs = [[]];
  // Whole texts: the hand-picked ones and a sample of the random ones.
  corpus.slice(0, 180).forEach((r) => seqs.push(r.ids));
  for (let i = 0; i < 150; ++i) seqs.push(pick(corpus).ids);
  // Scans as predict_long makes them, over texts with and without multi-byte characters.
  for (let i = 0; i < 120; ++i) {
    const r = pick(corpus);
    if (r.ids.length < 2) continue;
    const size = int(1, Math.min(24, r.ids.length));
    seqs.push(...windows(r.ids, size, Math.max(1, Math.floor(size / 2))).slice(0, 12));
  }
  // Windows of one to three ids inside texts with multi-byte characters: most cut a character.
  const wide = corpus.filter((r) => hasNonAscii(r.text) && r.ids.length >= 3);
  for (let i = 0; i < 700; ++i) {
    const r = pick(wide);
    const start = int(0, r.ids.length - 1);
    seqs.push(r.ids.slice(start, start + int(1, 3)));
  }
  // Random ids: anywhere in the vocabulary, added tokens, and ids past its end (no token).
  for (let i = 0; i < 400; ++i) {
    const seq = [];
    const n = int(1, 16);
    for (let k = 0; k < n; ++k) {
      const u = rand();
      seq.push(u < 0.6 ? int(0, vocabSize - 1) : u < 0.9 ? pick(addedIds) : int(vocabSize, vocabSize + 20));
    }
    seqs.push(seq);
  }
  return seqs;
}

// Decoders for tests/data/tok/metaspace-split.json (its own: Replace, ByteFallback, Fuse).
const metaspaceDecoders = {
  file: null,
  strip: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '\u2581' }, content: ' ' },
    { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
  metaspace_never: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'never', split: true },
  metaspace_first: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true },
  metaspace_always: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
  none: 'null',
};

function metaspaceIdSequences(corpus) {
  const seqs = [[]];
  for (let i = 0; i < 120; ++i) seqs.push(pick(corpus).ids);
  for (let i = 0; i < 120; ++i) {
    const r = pick(corpus);
    const start = int(0, Math.max(0, r.ids.length - 1));
    seqs.push(r.ids.slice(start, start + int(1, 6)));
  }
  // Byte tokens (<0xNN> = byte + 5): UTF-8 of random characters, some runs cut or corrupted.
  for (let i = 0; i < 160; ++i) {
    const seq = [];
    const n = int(1, 6);
    for (let k = 0; k < n; ++k) {
      const u = rand();
      if (u < 0.5) {
        let bytes = [...Buffer.from(String.fromCodePoint(pick([int(0x80, 0x7ff), int(0x800, 0xd7ff), int(0x10000, 0x10ffff)])))];
        if (rand() < 0.4) bytes = bytes.slice(0, int(0, bytes.length - 1));
        if (rand() < 0.2) bytes.splice(int(0, bytes.length), 0, int(0, 255));
        seq.push(...bytes.map((b) => b + 5));
      } else {
        seq.push(u < 0.9 ? int(0, 303) : int(304, 310));
      }
    }
    seqs.push(seq);
  }
  return seqs;
}

(async () => {
  const englishFile = path.join(root, 'tests/data/fixtures/upstream/english/tokenizer/tokenizer.json');
  const english = hf.Tokenizer.fromFile(englishFile);
  const englishJson = JSON.parse(fs.readFileSync(englishFile, 'utf8'));
  const addedIds = englishJson.added_tokens.map((t) => t.id);
  const vocabSize = Math.max(...Object.values(englishJson.model.vocab), ...addedIds) + 1;
  const englishRows = [];
  // Texts that give the clean-up something to rewrite: a space before each rule's pattern.
  const cleanUpTexts = ['Hello , world !', 'Is it ? Yes .', "I 'm sure it 's fine , they 're here .",
    "We 've been , haven 't we ?", "don n't ' quote ' s", " . . .  ..  , ,", "x ' 's", "it ' s ' ' ok",
    "A [MASK] . B [SEP] ? C<|endoftext|> !", "a  .b   ?c !\n .", "He said ' hi ' , then left .",
    "can 't won n't shan n't", "' m ' s ' ve ' re", " 'S 'M 'VE 'RE N'T", "1 , 000 . 5 ! ?"];
  const cleanUpIds = [];
  for (const t of cleanUpTexts) cleanUpIds.push((await english.encode(t, null, { addSpecialTokens: false })).getIds());
  for (const ids of cleanUpIds.concat(englishIdSequences(readJsonl('english-hf-corpus.jsonl'), vocabSize, addedIds))) {
    const text = await english.decode(ids, false);
    englishRows.push({ ids, text, cleaned: cleanUp(text) });
  }
  writeJsonl('english-hf-decode.jsonl', englishRows);

  const base = JSON.parse(fs.readFileSync(data('metaspace-split.json'), 'utf8'));
  const seqs = metaspaceIdSequences(readJsonl('metaspace-hf-corpus.jsonl').filter((r) => r.variant === 'never'));
  const metaRows = [];
  for (const [variant, spec] of Object.entries(metaspaceDecoders)) {
    const decoder = spec === null ? base.decoder : spec === 'null' ? null : spec;
    const tok = hf.Tokenizer.fromString(JSON.stringify({ ...base, decoder }));
    for (const ids of seqs) metaRows.push({ variant, decoder: JSON.stringify(decoder), ids, text: await tok.decode(ids, false) });
  }
  writeJsonl('metaspace-hf-decode.jsonl', metaRows);
  console.log(`english ${englishRows.length} id sequences, metaspace ${metaRows.length} rows`);
})();
