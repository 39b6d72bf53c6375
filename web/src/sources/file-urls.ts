// Where each checkpoint file lives for URL-based sources. Hub layout (as huggingface_hub builds
// it): <hubUrl>/<repo>/resolve/<revision>/<subfolder/><file>, revision percent-encoded as one
// segment (so "refs/pr/1" stays one segment), subfolder segments encoded one by one.
import { LayaError } from '../errors.js';
import type { CheckpointFileName, HubSource, UrlSource } from './checkpoint-source.js';

export const kDefaultHubUrl = 'https://huggingface.co';

/** A function from a checkpoint file to its URL, plus the base the cache keys on. */
export interface FileUrls {
  /** The URL of the checkpoint folder, ending in "/". */
  readonly base: string;
  readonly description: string;
  fileUrl(file: CheckpointFileName): string;
}

export function hubFileUrls(source: HubSource): FileUrls {
  const repo = source.repo.trim();
  if (!/^[\w.-]+(\/[\w.-]+)?$/.test(repo)) {
    throw new LayaError('invalid_request', `load: repo must look like "owner/name", got ${JSON.stringify(source.repo)}`);
  }
  const revision = source.revision ?? 'main';
  if (typeof revision !== 'string' || revision === '') {
    throw new LayaError('invalid_request', `load: revision must be a non-empty string, got ${JSON.stringify(source.revision)}`);
  }
  const hubUrl = (source.hubUrl ?? kDefaultHubUrl).replace(/\/+$/, '');
  const segments = (source.subfolder ?? '').split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..')) {
    throw new LayaError('invalid_request', `load: subfolder must not contain "." or ".." segments, got ${JSON.stringify(source.subfolder)}`);
  }
  const folder = segments.map((s) => `${encodeURIComponent(s)}/`).join('');
  const base = `${checkedBase(hubUrl + '/', 'hubUrl')}${repo}/resolve/${encodeURIComponent(revision)}/${folder}`;
  const sub = segments.length > 0 ? `, subfolder ${segments.join('/')}` : '';
  return {
    base,
    description: `${hubUrl}/${repo} (revision ${revision}${sub})`,
    fileUrl: (file) => base + file,
  };
}

export function baseFileUrls(source: UrlSource): FileUrls {
  const given = String(source.url);
  const url = new URL(checkedBase(given, 'url'));
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  const base = url.href;
  return {
    base,
    description: base,
    // Resolving keeps a query string (e.g. a signed URL) off the file path: it is dropped.
    fileUrl: (file) => new URL(file, base).href,
  };
}

/** An absolute http(s) / file / blob URL, resolved against the page in browsers. */
function checkedBase(text: string, field: string): string {
  let url: URL;
  try {
    const page = (globalThis as { location?: { href?: string } }).location?.href;
    url = page === undefined ? new URL(text) : new URL(text, page);
  } catch {
    throw new LayaError('invalid_request', `load: ${field} is not a valid absolute URL: ${JSON.stringify(text)}`);
  }
  return url.href;
}
