// The ledger of tests that passed only on a retry after an engine's known wasm fault
// (engine-faults.ts). A real out-of-bounds bug in the package would fail the same way, and a retry
// would hide it; so each such pass is recorded and counted, and a run with more than one fails
// (fault-retries-reporter.mjs). Jest runs test files in worker processes: each retry is one file
// in a folder all of them share, named by an environment variable the reporter sets before the
// workers start. Plain ES module (types: fault-retries.d.mts): the reporter is loaded untransformed.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable naming the shared folder. */
export const kRetriesFolderVariable = 'LAYA_FAULT_RETRIES_DIR';

/** How many passes on a retry one run tolerates: the fault is rare (docs/engine-faults.md); two in a run are not. */
export const kRetriesAllowed = 1;

let sequence = 0;

/** Records one test that passed only on its retry; a no-op when no reporter set up the folder. */
export function recordPassOnRetry(retry, env = process.env) {
  const folder = env[kRetriesFolderVariable];
  if (folder === undefined || folder === '') return;
  mkdirSync(folder, { recursive: true });
  sequence += 1;
  writeFileSync(join(folder, `${process.pid}-${sequence}.json`), JSON.stringify(retry));
}

/** Every retry recorded in `folder`, in a stable order (by test, then file). */
export function readPassesOnRetry(folder) {
  let names;
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')))
    .sort((a, b) => `${a.test}\0${a.file}`.localeCompare(`${b.test}\0${b.file}`));
}

/** What a run says about its retries, and the Error that fails it when there were too many. */
export function retriesVerdict(retries, allowed = kRetriesAllowed) {
  const count = retries.length;
  const lines = [`engine-fault retries: ${count} test${count === 1 ? '' : 's'} passed only on a retry ` +
    `after an engine's known wasm fault (at most ${allowed} allowed per run)${count > 0 ? ':' : ''}`];
  for (const retry of retries) lines.push(`  - ${retry.test} (${retry.file}): first run failed with ${retry.fault}`);
  if (count <= allowed) return { report: lines.join('\n'), error: undefined };
  lines.push('  More than one is not taken for the engine\'s fault: an out-of-bounds bug in the module looks the ' +
    'same. The traps and their stacks are in the log above each retry.');
  const error = new Error(`${count} tests passed only on a retry after a wasm trap (at most ${allowed} allowed)`);
  return { report: lines.join('\n'), error };
}
