// Test helper: builds the demo (bundles + the bundled default checkpoint) once, and runs
// scripts/serve-demo.mjs as a child process, the same server `npm run demo` uses.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { kRepoRoot } from '../helpers/fixtures.js';

export const kScreenshots = join(kRepoRoot, 'build', 'screenshots');

let built = false;

/** build/demo and build/default-checkpoint, fresh from the sources (esbuild: a few seconds). */
export function buildDemo(): void {
  if (built) return;
  execFileSync(process.execPath, [join(kRepoRoot, 'scripts', 'build-demo.mjs')], { stdio: 'pipe' });
  execFileSync(process.execPath, [join(kRepoRoot, 'scripts', 'make-default-checkpoint.mjs')], { stdio: 'pipe' });
  mkdirSync(kScreenshots, { recursive: true });
  built = true;
}

export interface DemoServer {
  url: string;
  origin: string;
  stop(): Promise<void>;
}

/** Serves the demo on a free 127.0.0.1 port, cross-origin isolated unless `args` (to serve-demo.mjs) say --no-isolation. */
export function serveDemo(args: string[] = []): Promise<DemoServer> {
  const child: ChildProcess = spawn(process.execPath, [join(kRepoRoot, 'scripts', 'serve-demo.mjs'), '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /laya-wasm demo: (http:\/\/\S+)/.exec(out);
      if (match?.[1] !== undefined) {
        const url = match[1];
        resolve({ url, origin: new URL(url).origin, stop: async () => { child.kill('SIGTERM'); await exited; } });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve-demo exited (${String(code)}): ${err}`)));
  });
}
