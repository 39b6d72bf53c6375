#!/usr/bin/env node
// Rewrites clang 14's pre-standard relaxed fused multiply-add (f32x4.relaxed_fma, 0xfd 0xaf 0x01,
// what __builtin_wasm_fma_f32x4 emits) into the standard f32x4.relaxed_madd (0xfd 0x85 0x02, a·b + c
// with the operands in the same order), in place: both encodings are 3 bytes, so no offset moves.
// V8 rejects the old opcode (docs/toolchain.md "Emscripten").
//
// The code section is decoded instruction by instruction (every immediate of MVP, SIMD, relaxed
// SIMD, threads, bulk memory, reference types and exceptions skipped by its encoding), so only
// opcodes are rewritten, never bytes of data, constants or immediates. The count is then checked
// against binaryen's disassembly (wasm-dis, count of `f32x4.relaxed_fma`) and the rewritten file
// decoded again; any mismatch, any other pre-standard relaxed opcode (which V8 would also reject),
// or an opcode the decoder does not know fails, and the .wasm is deleted so that a stale
// half-built module is never shipped or tested.
//
// Usage: node scripts/relaxed-simd-rewrite.mjs <file.wasm | file.js | file.mjs> [--no-wasm-dis]
//   (a .js file names the .wasm beside it, as Emscripten writes them). Prints one line.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const OLD_FMA = 0xaf; // f32x4.relaxed_fma (prototype), a·b + c as clang 14 orders the operands
const OLD_FMS = 0xb0; // f32x4.relaxed_fms (prototype)
const NEW_MADD = 0x105; // f32x4.relaxed_madd (standard)
// Pre-standard relaxed-SIMD opcodes clang 14 / binaryen 108 know, all rejected by V8: relaxed_swizzle
// 0xa2, relaxed_trunc 0xa5 0xa6 0xc5 0xc6, f32x4 fma/fms 0xaf 0xb0, f64x2 fma/fms 0xcf 0xd0,
// laneselect 0xb2 0xb3 0xd2 0xd3, relaxed min/max 0xb4 0xe2 0xd4 0xee, q15mulr 0x111, dots 0x112 0x113.
// (The standard ones are 0x100-0x113.) Of these only f32x4 fma is rewritten; any other fails.
const PRESTANDARD = new Set([0xa2, 0xa5, 0xa6, 0xc5, 0xc6, 0xaf, 0xb0, 0xcf, 0xd0, 0xb2, 0xb3, 0xd2, 0xd3, 0xb4, 0xe2, 0xd4, 0xee]);

class Reader {
  constructor(bytes, pos, end) {
    this.b = bytes;
    this.pos = pos;
    this.end = end;
  }
  byte() {
    if (this.pos >= this.end) throw new Error(`unexpected end at byte ${this.pos}`);
    return this.b[this.pos++];
  }
  u32() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new Error(`LEB128 too long at byte ${this.pos}`);
    }
  }
  sleb(maxBytes) {
    for (let i = 0; i < maxBytes; ++i) if ((this.byte() & 0x80) === 0) return;
    throw new Error(`signed LEB128 too long at byte ${this.pos}`);
  }
  skip(n) {
    if (this.pos + n > this.end) throw new Error(`unexpected end at byte ${this.pos}`);
    this.pos += n;
  }
  memarg() {
    this.u32();
    this.u32();
  }
}

// SIMD (0xfd) sub-opcodes with immediates; every other one has none.
function simdImmediates(r, op) {
  if (op <= 11 || op === 92 || op === 93) return r.memarg(); // loads, store, load*_zero
  if (op === 12 || op === 13) return r.skip(16); // v128.const, i8x16.shuffle
  if (op >= 21 && op <= 34) return r.skip(1); // extract / replace lane
  if (op >= 84 && op <= 91) {
    r.memarg();
    return r.skip(1); // load / store lane
  }
  if (op > 0x113) throw new Error(`unknown SIMD opcode 0x${op.toString(16)}`);
}

// Walks one function body, calling visit(simdOp, opStart, subOpStart, subOpLength) for each SIMD op.
function walkBody(r, visit) {
  const localGroups = r.u32();
  for (let i = 0; i < localGroups; ++i) {
    r.u32();
    r.byte();
  }
  while (r.pos < r.end) {
    const start = r.pos;
    const op = r.byte();
    if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x19 || op === 0x1a || op === 0x1b || op === 0xd1) continue;
    if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x06) r.sleb(5); // blocktype
    else if ((op >= 0x07 && op <= 0x09) || op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || op === 0x18) r.u32();
    else if (op === 0x0e) {
      const n = r.u32();
      for (let i = 0; i <= n; ++i) r.u32();
    } else if (op === 0x11 || op === 0x13) {
      r.u32();
      r.u32();
    } else if (op === 0x1c) {
      const n = r.u32();
      r.skip(n);
    } else if (op >= 0x20 && op <= 0x26) r.u32();
    else if (op >= 0x28 && op <= 0x3e) r.memarg();
    else if (op === 0x3f || op === 0x40) r.u32();
    else if (op === 0x41) r.sleb(5);
    else if (op === 0x42) r.sleb(10);
    else if (op === 0x43) r.skip(4);
    else if (op === 0x44) r.skip(8);
    else if (op >= 0x45 && op <= 0xc4) continue;
    else if (op === 0xd0) r.byte();
    else if (op === 0xd2) r.u32();
    else if (op === 0xfc) {
      const sub = r.u32();
      if (sub <= 7) continue;
      if (sub === 8) {
        r.u32();
        r.u32();
      } else if (sub === 10 || sub === 12 || sub === 14) {
        r.u32();
        r.u32();
      } else if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) r.u32();
      else throw new Error(`unknown 0xfc opcode ${sub} at byte ${start}`);
    } else if (op === 0xfd) {
      const subStart = r.pos;
      const sub = r.u32();
      visit(sub, start, subStart, r.pos - subStart);
      simdImmediates(r, sub);
    } else if (op === 0xfe) {
      const sub = r.u32();
      if (sub === 0x03) r.byte();
      else if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) r.memarg();
      else throw new Error(`unknown atomic opcode 0x${sub.toString(16)} at byte ${start}`);
    } else throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${start}`);
  }
}

// Every SIMD instruction of the code section: { sub, subStart, subLength }.
export function simdInstructions(bytes) {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error('not a wasm binary');
  }
  const found = [];
  const r = new Reader(bytes, 8, bytes.length);
  let codeSections = 0;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 10) {
      ++codeSections;
      const s = new Reader(bytes, r.pos, end);
      const count = s.u32();
      for (let f = 0; f < count; ++f) {
        const bodySize = s.u32();
        const body = new Reader(bytes, s.pos, s.pos + bodySize);
        walkBody(body, (sub, opStart, subStart, subLength) => found.push({ sub, subStart, subLength }));
        if (body.pos !== s.pos + bodySize) throw new Error(`function ${f} decoded past its end`);
        s.pos += bodySize;
      }
      if (s.pos !== end) throw new Error('code section size mismatch');
    }
    r.pos = end;
  }
  if (codeSections !== 1) throw new Error(`expected one code section, found ${codeSections}`);
  return found;
}

function rewrite(file, useWasmDis) {
  const bytes = new Uint8Array(readFileSync(file));
  const ops = simdInstructions(bytes);
  const fma = ops.filter((o) => o.sub === OLD_FMA);
  const other = ops.filter((o) => PRESTANDARD.has(o.sub) && o.sub !== OLD_FMA);
  if (other.length > 0) {
    throw new Error(`${other.length} other pre-standard relaxed SIMD instruction(s) (first 0xfd 0x${other[0].sub.toString(16)}), which V8 rejects`);
  }
  const already = ops.filter((o) => o.sub === NEW_MADD).length;
  if (useWasmDis) {
    const text = execFileSync('wasm-dis', ['--enable-simd', '--enable-relaxed-simd', '--enable-threads', '--enable-bulk-memory', '--enable-sign-ext', '--enable-mutable-globals', '--enable-nontrapping-float-to-int', file], { maxBuffer: 1 << 30, encoding: 'utf8' });
    const disCount = (text.match(/\(f32x4\.relaxed_fma\b/g) ?? []).length;
    const disFms = (text.match(/\(f32x4\.relaxed_fms\b/g) ?? []).length;
    if (disCount !== fma.length || disFms !== 0) {
      throw new Error(`wasm-dis counts ${disCount} f32x4.relaxed_fma and ${disFms} relaxed_fms, the decoder found ${fma.length} fma`);
    }
  }
  for (const o of fma) {
    if (o.subLength !== 2 || bytes[o.subStart] !== 0xaf || bytes[o.subStart + 1] !== 0x01) {
      throw new Error(`relaxed_fma at byte ${o.subStart} is not encoded as 0xaf 0x01`);
    }
    bytes[o.subStart] = 0x85; // LEB128 of 0x105
    bytes[o.subStart + 1] = 0x02;
  }
  // The rewritten file decodes to the same instructions with every fma now a madd.
  const after = simdInstructions(bytes);
  const madd = after.filter((o) => o.sub === NEW_MADD).length;
  if (after.length !== ops.length || madd !== already + fma.length || after.some((o) => PRESTANDARD.has(o.sub))) {
    throw new Error(`rewritten file decodes differently (${madd} relaxed_madd, expected ${already + fma.length})`);
  }
  if (fma.length > 0) writeFileSync(file, bytes);
  return { rewritten: fma.length, madd, simd: ops.length };
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const args = process.argv.slice(2);
  const useWasmDis = !args.includes('--no-wasm-dis');
  const target = args.find((a) => !a.startsWith('--'));
  if (!target) {
    console.error('usage: relaxed-simd-rewrite.mjs <file.wasm | file.js | file.mjs> [--no-wasm-dis]');
    process.exit(2);
  }
  const file = /\.m?js$/.test(target) ? target.replace(/\.m?js$/, '.wasm') : target;
  if (!existsSync(file)) {
    console.error(`relaxed-simd-rewrite: ${file} does not exist`);
    process.exit(1);
  }
  try {
    const { rewritten, madd, simd } = rewrite(file, useWasmDis);
    console.log(`relaxed-simd-rewrite: ${file}: ${rewritten} f32x4.relaxed_fma -> relaxed_madd (now ${madd} of ${simd} SIMD instructions${useWasmDis ? ', count checked against wasm-dis' : ''})`);
  } catch (e) {
    rmSync(file, { force: true });
    console.error(`relaxed-simd-rewrite: ${file}: ${e.message}; deleted it`);
    process.exit(1);
  }
}
