// What the numbers were measured on: cores, CPU model, load, versions (printed by every bench).
import fs from 'node:fs';
import os from 'node:os';
import { execFileSync } from 'node:child_process';

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
