// Where Node keeps a source's downloads (options.cache): a folder per source URL under the cache
// root, so that two checkpoints never share one and the folder still says whose it is.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The cache root for options.cache: a given path, or for `true` the user's cache folder,
 * $XDG_CACHE_HOME/laya-wasm or ~/.cache/laya-wasm.
 */
export function cacheRoot(option: true | string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (typeof option === 'string') return option;
  const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'laya-wasm');
}

/** A readable, unique folder name for a source's base URL. */
export function cacheFolderName(baseUrl: string): string {
  const hash = createHash('sha256').update(baseUrl).digest('hex').slice(0, 12);
  const readable = baseUrl.replace(/^[a-z]+:\/\//i, '').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100);
  return `${readable}-${hash}`;
}
