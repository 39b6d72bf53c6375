#!/usr/bin/env node
// The laya-wasm command (package.json "bin"); see cli/run.ts for the commands.
import { runCli } from './cli/run.js';

const status = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = status;
