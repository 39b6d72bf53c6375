// The checkpoint names upstream's Router and `load(name)` know, their aliases and the repositories
// they name (laya-spec-current §11.1). A source is the Hub repository and subfolder, as upstream writes it.
import { LayaError } from '../errors.js';
import { pyRepr } from './python-format.js';
import { pyStrip } from './python-text.js';

/** A built-in checkpoint name. */
export type CheckpointName = 'english' | 'multilingual' | 'typed-decisions';

/** A Hub repository and an optional subfolder, upstream's `(repo, subfolder)` pair. */
export interface RepoSpec {
  repo: string;
  subfolder: string | null;
}

export const kBundleRepo = 'convaiinnovations/laya';

/** The three checkpoints bundled in one Hub repository (upstream's default). */
export const kBundledModels: Readonly<Record<CheckpointName, RepoSpec>> = {
  english: { repo: kBundleRepo, subfolder: null },
  multilingual: { repo: kBundleRepo, subfolder: 'multilingual' },
  'typed-decisions': { repo: kBundleRepo, subfolder: 'typed-decisions' },
};

/** The same checkpoints in their own repositories (`standalone_repos=True`). */
export const kStandaloneModels: Readonly<Record<CheckpointName, RepoSpec>> = {
  english: { repo: 'convaiinnovations/laya', subfolder: null },
  multilingual: { repo: 'convaiinnovations/laya-multilingual', subfolder: null },
  'typed-decisions': { repo: 'convaiinnovations/laya-typed-decisions', subfolder: null },
};

/** Aliases, matched after trimming and lowercasing. */
export const kAliases: Readonly<Record<string, CheckpointName>> = {
  en: 'english', laya: 'english', default: 'english',
  multi: 'multilingual', ml: 'multilingual', 'laya-multilingual': 'multilingual',
  typed: 'typed-decisions', typed_decisions: 'typed-decisions',
  'laya-typed-decisions': 'typed-decisions', decisions: 'typed-decisions',
};

/** Trim, lowercase and resolve an alias, without asking whether the result names a checkpoint. */
export function canonicalName(name: string): string {
  const key = pyStrip(name).toLowerCase();
  return Object.hasOwn(kAliases, key) ? (kAliases[key] as CheckpointName) : key;
}

/** `repo` or `repo/subfolder`, the `repo` string of a routing decision. */
export function repoString(spec: RepoSpec | string | null | undefined): string | null {
  if (spec === null || spec === undefined) return null;
  if (typeof spec === 'string') return spec;
  return spec.subfolder ? `${spec.repo}/${spec.subfolder}` : spec.repo;
}

/** Python's `sorted()` of strings: by code point, not by UTF-16 unit. */
function sortedByCodePoint(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => {
    const ca = Array.from(a, (ch) => ch.codePointAt(0) ?? 0);
    const cb = Array.from(b, (ch) => ch.codePointAt(0) ?? 0);
    for (let i = 0; i < Math.min(ca.length, cb.length); i += 1) {
      if (ca[i] !== cb[i]) return (ca[i] ?? 0) - (cb[i] ?? 0);
    }
    return ca.length - cb.length;
  });
}

/** A Python list of str as `%s` prints it. */
function pyList(items: string[]): string {
  return `[${items.map(pyRepr).join(', ')}]`;
}

/**
 * The canonical name of a checkpoint in `models` (the built-ins, or a caller's table), or an
 * `invalid_request` error worded as upstream's.
 */
export function resolveName(name: string, models: Readonly<Record<string, unknown>> = kBundledModels): string {
  const key = canonicalName(name);
  if (Object.hasOwn(models, key)) return key;
  throw new LayaError('invalid_request', `unknown model ${pyRepr(name)}; choose one of `
    + `${pyList(sortedByCodePoint(Object.keys(models)))} (or an alias: ${pyList(sortedByCodePoint(Object.keys(kAliases)))})`);
}
