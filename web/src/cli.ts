#!/usr/bin/env node
// The laya-wasm command (package.json "bin"); see cli/run.ts for the commands.
import { setFlagsFromString } from 'node:v8';
import { relaxedSimdSupported } from './core/simd.js';
import { runCli } from './cli/run.js';

const status = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  stderrIsTerminal: process.stderr.isTTY === true,
  // Node 20 compiles relaxed SIMD only behind a V8 flag; set before any module compiles, it applies
  // to this process and the module's worker threads (no re-exec). Node 22+ has it already.
  enableRelaxedSimd: () => {
    if (!relaxedSimdSupported()) setFlagsFromString('--experimental-wasm-relaxed-simd');
  },
});
process.exitCode = status;
