// The bench pages' server, shared by run.mjs and worker-probe.mjs.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** scripts/serve-demo.mjs (cross-origin isolated, its default), serving dist/, bench/ and the checkpoint; resolves to its origin. */
export function startServer(root, checkpointDir, dist) {
  const server = spawn(process.execPath, [path.join(root, 'scripts/serve-demo.mjs'), '--port', '0',
    '--mount', `/bench/=${path.join(root, 'bench')}`, '--mount', `/checkpoint/=${checkpointDir}`, '--mount', `/dist/=${dist}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/[\d.]+:\d+)\//.exec(out);
      if (m) resolve({ origin: m[1], stop: () => server.kill('SIGTERM') });
    });
    server.on('exit', (code) => reject(new Error(`serve-demo exited ${code}: ${out}`)));
  });
}
