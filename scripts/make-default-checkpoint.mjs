#!/usr/bin/env node
// Writes the demo's bundled default checkpoint: a tiny RANDOM Laya model (d 64, 1 head, 4 encoder
// layers G S S G, window 16, 2 head layers, F16) with the real English ModernBERT tokenizer and
// the English rl_agent_config.json, so real text tokenizes for real but the answers mean nothing.
// Deterministic (seeded PRNG); every tensor of laya-spec §1.5 in module order plus the F32
// `temperature` buffer.
// Usage: node scripts/make-default-checkpoint.mjs [outDir] (default build/default-checkpoint).
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const kRepoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The English checkpoint's configs and tokenizer, as the upstream fixtures keep them.
const kEnglish = join(kRepoRoot, 'tests', 'data', 'fixtures', 'upstream', 'english');
const kSeed = 20261202;

const dims = { vocab: 50368, d: 64, heads: 1, layers: 4, inter: 96, window: 16, headLayers: 2, actions: 2 };

/** mulberry32: a small seeded PRNG, enough for weights nobody will read. */
function makeRandom(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Box-Muller; (1 - u) keeps the logarithm finite.
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half from a double, rounded to nearest even (the values here are small and finite). */
function toHalf(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rest > mid || (rest === mid && (half & 1)) ? 1 : 0));
  }
  const half = (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && (half & 1)) ? 1 : 0));
}

/** laya-spec §1.5, in module order: [name, shape, kind] with kind "matrix" | "norm" | "bias". */
function tensorList({ vocab, d, layers, inter, headLayers, actions }) {
  const list = [['encoder.embeddings.tok_embeddings.weight', [vocab, d], 'matrix'],
    ['encoder.embeddings.norm.weight', [d], 'norm']];
  for (let i = 0; i < layers; i++) {
    const p = `encoder.layers.${i}.`;
    if (i > 0) list.push([`${p}attn_norm.weight`, [d], 'norm']);  // layer 0's is Identity
    list.push([`${p}attn.Wqkv.weight`, [3 * d, d], 'matrix'], [`${p}attn.Wo.weight`, [d, d], 'matrix'],
      [`${p}mlp_norm.weight`, [d], 'norm'], [`${p}mlp.Wi.weight`, [2 * inter, d], 'matrix'],
      [`${p}mlp.Wo.weight`, [d, inter], 'matrix']);
  }
  list.push(['encoder.final_norm.weight', [d], 'norm'], ['type_emb.weight', [3, d], 'matrix']);
  for (let j = 0; j < headLayers; j++) {
    const p = `head.layers.${j}.`;
    list.push([`${p}self_attn.in_proj_weight`, [3 * d, d], 'matrix'], [`${p}self_attn.in_proj_bias`, [3 * d], 'bias'],
      [`${p}self_attn.out_proj.weight`, [d, d], 'matrix'], [`${p}self_attn.out_proj.bias`, [d], 'bias'],
      [`${p}linear1.weight`, [4 * d, d], 'matrix'], [`${p}linear1.bias`, [4 * d], 'bias'],
      [`${p}linear2.weight`, [d, 4 * d], 'matrix'], [`${p}linear2.bias`, [d], 'bias'],
      [`${p}norm1.weight`, [d], 'norm'], [`${p}norm1.bias`, [d], 'bias'],
      [`${p}norm2.weight`, [d], 'norm'], [`${p}norm2.bias`, [d], 'bias']);
  }
  list.push(['scorer.0.weight', [d], 'norm'], ['scorer.0.bias', [d], 'bias'],
    ['scorer.1.weight', [d, d], 'matrix'], ['scorer.1.bias', [d], 'bias'],
    ['scorer.3.weight', [1, d], 'matrix'], ['scorer.3.bias', [1], 'bias'],
    ['act_head.0.weight', [256, d + 4], 'matrix'], ['act_head.0.bias', [256], 'bias'],
    ['act_head.2.weight', [actions, 256], 'matrix'], ['act_head.2.bias', [actions], 'bias']);
  return list;
}

/** The safetensors bytes: F16 tensors drawn with std 1/sqrt(fan_in), then the F32 temperature. */
function buildSafetensors() {
  const normal = makeRandom(kSeed);
  const header = { __metadata__: { format: 'pt' } };
  const chunks = [];
  let offset = 0;
  for (const [name, shape, kind] of tensorList(dims)) {
    const count = shape.reduce((a, b) => a * b, 1);
    const data = new Uint16Array(count);
    const std = kind === 'matrix' ? 1 / Math.sqrt(shape[shape.length - 1]) : 0.1;
    for (let i = 0; i < count; i++) data[i] = toHalf((kind === 'norm' ? 1 : 0) + std * normal());
    header[name] = { dtype: 'F16', shape, data_offsets: [offset, offset + 2 * count] };
    chunks.push(new Uint8Array(data.buffer));
    offset += 2 * count;
  }
  const temperature = new Float32Array([1, 1, 1]);  // the unused buffer, all 1.0 as upstream ships it
  header.temperature = { dtype: 'F32', shape: [3], data_offsets: [offset, offset + 12] };
  chunks.push(new Uint8Array(temperature.buffer));
  let headerText = JSON.stringify(header);
  headerText += ' '.repeat((8 - (headerText.length % 8)) % 8);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(headerText.length));
  return Buffer.concat([prefix, Buffer.from(headerText, 'utf8'), ...chunks]);
}

/** Written beside and renamed into place: a server reading the file meanwhile sees old or new, never half. */
function writeAtomic(path, data) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, path);
}

function main() {
  const out = resolve(process.argv[2] ?? join(kRepoRoot, 'build', 'default-checkpoint'));
  mkdirSync(join(out, 'encoder'), { recursive: true });
  mkdirSync(join(out, 'tokenizer'), { recursive: true });

  const encoder = JSON.parse(readFileSync(join(kEnglish, 'encoder', 'config.json'), 'utf8'));
  Object.assign(encoder, {
    hidden_size: dims.d, intermediate_size: dims.inter, num_hidden_layers: dims.layers,
    num_attention_heads: dims.heads, local_attention: dims.window,
  });
  writeAtomic(join(out, 'encoder', 'config.json'), `${JSON.stringify(encoder, null, 2)}\n`);

  const agent = JSON.parse(readFileSync(join(kEnglish, 'rl_agent_config.json'), 'utf8'));
  agent.model_name = 'laya-wasm-default-random';
  agent.encoder = 'laya-wasm/random-modernbert-d64-l4 (random weights, English ModernBERT tokenizer)';
  writeAtomic(join(out, 'rl_agent_config.json'), `${JSON.stringify(agent, null, 2)}\n`);

  for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
    const temp = join(out, 'tokenizer', `${file}.${process.pid}.tmp`);
    copyFileSync(join(kEnglish, 'tokenizer', file), temp);
    chmodSync(temp, 0o644);  // the fixtures are read-only; a rerun must be able to replace the copy
    renameSync(temp, join(out, 'tokenizer', file));
  }
  const weights = buildSafetensors();
  writeAtomic(join(out, 'model.safetensors'), weights);
  console.log(`default checkpoint (random weights): ${out} (${weights.length} bytes of weights)`);
}

main();
