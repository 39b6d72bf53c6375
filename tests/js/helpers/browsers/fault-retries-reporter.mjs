// A Jest reporter (jest.config.js) that counts the tests that passed only on a retry after an
// engine's known wasm fault (fault-retries.mjs): it makes the shared folder before the test workers
// start, prints the count and the tests' names when the run ends, and fails the run (getLastError:
// Jest then exits non-zero) when there were more than kRetriesAllowed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kRetriesAllowed, kRetriesFolderVariable, readPassesOnRetry, retriesVerdict } from './fault-retries.mjs';

export default class FaultRetriesReporter {
  #allowed;
  #folder;
  #variableBefore;
  #error;

  constructor(_globalConfig, options = {}) {
    this.#allowed = options.allowed ?? kRetriesAllowed;
  }

  onRunStart() {
    this.#folder = mkdtempSync(join(tmpdir(), 'laya-fault-retries-'));
    this.#variableBefore = process.env[kRetriesFolderVariable];
    // Workers are forked after onRunStart, with this process's environment.
    process.env[kRetriesFolderVariable] = this.#folder;
  }

  onRunComplete() {
    if (this.#folder === undefined) return;
    const retries = readPassesOnRetry(this.#folder);
    rmSync(this.#folder, { recursive: true, force: true });
    if (this.#variableBefore === undefined) delete process.env[kRetriesFolderVariable];
    else process.env[kRetriesFolderVariable] = this.#variableBefore;
    this.#folder = undefined;
    const { report, error } = retriesVerdict(retries, this.#allowed);
    process.stderr.write(`\n${report}\n`);
    this.#error = error;
  }

  getLastError() {
    return this.#error;
  }
}
