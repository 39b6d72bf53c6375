// Random Laya checkpoints for the benchmarks (laya-spec §1.1 / §1.5): configs copied from the English
// checkpoint with the shapes changed, the English tokenizer, and a model.safetensors of F16 weights
// drawn uniformly with std 1/sqrt(fan_in) (so activations stay sane through 28 layers), written
// streaming from a seeded xorshift PRNG through a 65536-entry F16 quantile table per scale.
// Never committed: generated into build/bench/<name>/ and reused when its stamp matches.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The English checkpoint's configs and tokenizer, as the repository's upstream fixtures keep them.
const kEnglish = fileURLToPath(new URL('../tests/data/fixtures/upstream/english', import.meta.url));

/** The two benchmark shapes (brief: ModernBERT-large = the English model, and a base-like one). */
export const kShapes = {
  'english-f16': { d: 1024, layers: 28, heads: 16, inter: 2624, vocab: 50368, headLayers: 2, acts: 1 },
  'base-f16': { d: 768, layers: 22, heads: 12, inter: 1152, vocab: 50368, headLayers: 2, acts: 1 },
  // For CPU emulations of a GPU (SwiftShader runs WebGPU at ~0.1 GFLOP/s): proves the GPU path runs.
  'small-f16': { d: 128, layers: 4, heads: 2, inter: 256, vocab: 50368, headLayers: 2, acts: 1 },
  // For bench/webgpu-memory.mjs: 0.19 GB, large enough for RSS ratios, quick to load.
  'mem-f16': { d: 512, layers: 24, heads: 8, inter: 1024, vocab: 50368, headLayers: 2, acts: 1 },
};

/** Every tensor of laya-spec §1.5 in module order: [name, shape, kind], kind = 'w' (fan-in scaled), 'norm', 'bias', 'f32one'. */
export function tensorList(s) {
  const { d, layers, inter, vocab, headLayers } = s;
  const t = [];
  t.push(['encoder.embeddings.tok_embeddings.weight', [vocab, d], 'w']);
  t.push(['encoder.embeddings.norm.weight', [d], 'norm']);
  for (let i = 0; i < layers; ++i) {
    const p = `encoder.layers.${i}.`;
    if (i !== 0) t.push([p + 'attn_norm.weight', [d], 'norm']);
    t.push([p + 'attn.Wqkv.weight', [3 * d, d], 'w']);
    t.push([p + 'attn.Wo.weight', [d, d], 'w']);
    t.push([p + 'mlp_norm.weight', [d], 'norm']);
    t.push([p + 'mlp.Wi.weight', [2 * inter, d], 'w']);
    t.push([p + 'mlp.Wo.weight', [d, inter], 'w']);
  }
  t.push(['encoder.final_norm.weight', [d], 'norm']);
  t.push(['type_emb.weight', [3, d], 'w']);
  for (let j = 0; j < headLayers; ++j) {
    const p = `head.layers.${j}.`;
    t.push([p + 'self_attn.in_proj_weight', [3 * d, d], 'w']);
    t.push([p + 'self_attn.in_proj_bias', [3 * d], 'bias']);
    t.push([p + 'self_attn.out_proj.weight', [d, d], 'w']);
    t.push([p + 'self_attn.out_proj.bias', [d], 'bias']);
    t.push([p + 'linear1.weight', [4 * d, d], 'w']);
    t.push([p + 'linear1.bias', [4 * d], 'bias']);
    t.push([p + 'linear2.weight', [d, 4 * d], 'w']);
    t.push([p + 'linear2.bias', [d], 'bias']);
    t.push([p + 'norm1.weight', [d], 'norm']);
    t.push([p + 'norm1.bias', [d], 'bias']);
    t.push([p + 'norm2.weight', [d], 'norm']);
    t.push([p + 'norm2.bias', [d], 'bias']);
  }
  t.push(['scorer.0.weight', [d], 'norm']);
  t.push(['scorer.0.bias', [d], 'bias']);
  t.push(['scorer.1.weight', [d, d], 'w']);
  t.push(['scorer.1.bias', [d], 'bias']);
  t.push(['scorer.3.weight', [1, d], 'w']);
  t.push(['scorer.3.bias', [1], 'bias']);
  t.push(['act_head.0.weight', [256, d + 4], 'w']);
  t.push(['act_head.0.bias', [256], 'bias']);
  t.push(['act_head.2.weight', [s.acts + 1, 256], 'w']);
  t.push(['act_head.2.bias', [s.acts + 1], 'bias']);
  t.push(['temperature', [3], 'f32one']);
  return t;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half bits of a float (round to nearest even; the values here are small and normal or zero). */
function toHalf(x) {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = ((b >>> 23) & 0xff) - 127 + 15;
  let mant = b & 0x7fffff;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h += 1;
    return sign | h;
  }
  if (exp >= 31) return sign | 0x7c00;
  let h = (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h += 1;
  return sign | h;
}

/** 65536 F16 codes spanning uniform(center - a, center + a) by quantile, a = sqrt(3)·std. */
function quantileTable(center, std) {
  const a = Math.sqrt(3) * std;
  const table = new Uint16Array(65536);
  for (let i = 0; i < 65536; ++i) table[i] = toHalf(center + a * ((i + 0.5) / 32768 - 1));
  return table;
}

function tableFor(kind, shape, d) {
  if (kind === 'w') return quantileTable(0, 1 / Math.sqrt(shape[shape.length - 1]));
  if (kind === 'norm') return quantileTable(1, 0.05);
  return quantileTable(0, 0.02 / Math.sqrt(1 + d / 1024));
}

/** Writes the checkpoint into `dir` (reusing it when the stamp says same shapes and seed). */
export function generateCheckpoint(dir, shape, seed = 1234, log = () => undefined) {
  const stamp = JSON.stringify({ shape, seed, v: 1 });
  const stampFile = path.join(dir, '.bench-stamp');
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return { reused: true };
  fs.mkdirSync(path.join(dir, 'encoder'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'tokenizer'), { recursive: true });
  fs.rmSync(stampFile, { force: true });
  for (const f of ['tokenizer/tokenizer.json', 'tokenizer/tokenizer_config.json', 'rl_agent_config.json']) {
    fs.writeFileSync(path.join(dir, f), fs.readFileSync(path.join(kEnglish, f))); // a copy would keep the fixture's read-only mode
  }
  const enc = JSON.parse(fs.readFileSync(path.join(kEnglish, 'encoder/config.json'), 'utf8'));
  Object.assign(enc, {
    hidden_size: shape.d, num_hidden_layers: shape.layers, num_attention_heads: shape.heads,
    intermediate_size: shape.inter, vocab_size: shape.vocab,
  });
  fs.writeFileSync(path.join(dir, 'encoder/config.json'), JSON.stringify(enc, null, 2) + '\n');

  const tensors = tensorList(shape);
  const header = {};
  let offset = 0;
  for (const [name, dims, kind] of tensors) {
    const bytes = dims.reduce((a, b) => a * b, 1) * (kind === 'f32one' ? 4 : 2);
    header[name] = { dtype: kind === 'f32one' ? 'F32' : 'F16', shape: dims, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let headerText = JSON.stringify(header);
  headerText += ' '.repeat((8 - (headerText.length % 8)) % 8);
  const t0 = performance.now();
  const file = path.join(dir, 'model.safetensors');
  const fd = fs.openSync(file + '.tmp', 'w');
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(headerText.length));
  fs.writeSync(fd, prefix);
  fs.writeSync(fd, Buffer.from(headerText, 'latin1'));

  const kChunk = 8 << 20; // halves per write (16 MB)
  const buf = new Uint16Array(kChunk);
  let state = seed >>> 0 || 1;
  const tables = new Map();
  for (const [, dims, kind] of tensors) {
    const count = dims.reduce((a, b) => a * b, 1);
    if (kind === 'f32one') {
      fs.writeSync(fd, new Uint8Array(new Float32Array(count).fill(1).buffer));
      continue;
    }
    const key = `${kind}:${dims[dims.length - 1]}`;
    if (!tables.has(key)) tables.set(key, tableFor(kind, dims, shape.d));
    const table = tables.get(key);
    for (let done = 0; done < count; done += kChunk) {
      const n = Math.min(kChunk, count - done);
      for (let j = 0; j < n; j += 2) {
        state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
        buf[j] = table[state & 0xffff];
        buf[j + 1] = table[state >>> 16];
      }
      fs.writeSync(fd, new Uint8Array(buf.buffer, 0, n * 2));
    }
  }
  fs.closeSync(fd);
  fs.renameSync(file + '.tmp', file);
  fs.writeFileSync(stampFile, stamp);
  const bytes = fs.statSync(file).size;
  log(`generated ${file}: ${(bytes / 1e9).toFixed(3)} GB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { reused: false, bytes };
}

// CLI: node bench/gen-checkpoint.mjs <english-f16|base-f16> [dir]
if (import.meta.url === `file://${process.argv[1]}`) {
  const name = process.argv[2] ?? 'english-f16';
  const shape = kShapes[name];
  if (!shape) { console.error(`unknown shape ${name}; one of ${Object.keys(kShapes).join(', ')}`); process.exit(2); }
  const dir = process.argv[3] ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'build', 'bench', name);
  const r = generateCheckpoint(dir, shape, 1234, console.log);
  if (r.reused) console.log(`reused ${dir}`);
}
