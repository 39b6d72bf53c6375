// What the numbers were measured on: cores, CPU model, load, versions (printed by every bench).
import fs from 'node:fs';
import os from 'node:os';
import { execFileSync, spawn } from 'node:child_process';

export function machineLines(extra = {}) {
  const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? 'unknown';
  let emcc = 'not found';
  try { emcc = execFileSync('emcc', ['--version'], { encoding: 'utf8' }).split('\n')[0].replace(/^emcc \(.*?\)\s*/, ''); } catch { /* absent */ }
  const thp = (() => { try { return fs.readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8').trim(); } catch { return '?'; } })();
  const lines = [
    `machine: nproc ${os.availableParallelism?.() ?? os.cpus().length}, CPU "${cpu}", RAM ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, THP ${thp}`,
    `load average: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (1/5/15 min)`,
    `versions: node ${process.version}, emcc ${emcc}` + Object.entries(extra).map(([k, v]) => `, ${k} ${v}`).join(''),
  ];
  return lines;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// One measurement in a fresh Node process (so its memory is its own): runs `args` with this Node,
// and resolves with the JSON of the last line the child prints. `stderr`: 'inherit' shows the
// child's warnings, 'ignore' drops a driver's noise. `label` names the child in an error.
export function runChild(args, { env = process.env, stderr = 'inherit', label }) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', stderr], env });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', (code) => {
      const line = out.trim().split('\n').pop();
      if (code !== 0 || !line) reject(new Error(`${label} exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(line));
    });
  });
}
