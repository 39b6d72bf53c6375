// A local HTTP server (127.0.0.1, random port) for resumed downloads: one checkpoint folder under a
// URL prefix, where one file's answers drop the connection at given byte offsets, Range requests
// ("bytes=a-" and "bytes=a-b") are answered with 206 or ignored, the file carries an ETag and/or a
// Last-Modified date, and can turn into another version of itself after the first drop.
import { readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenOnLoopback } from './loopback.js';

export interface FlakyBehaviour {
  /** The file whose answers drop. Default "model.safetensors". */
  file?: string;
  /** File offsets at which that file's successive answers are cut (the first answer at cuts[0], ...). */
  cuts?: number[];
  /** "honour" (default): 206 for a satisfiable Range; "ignore": always 200 with the whole file. */
  ranges?: 'honour' | 'ignore';
  /** Send ETag "v<version>" (default true) and a Last-Modified date a day old (default false). */
  etag?: boolean;
  lastModified?: boolean;
  /**
   * After the first cut the file is version 2 (same size, every byte flipped, ETag "v2", a newer
   * Last-Modified). A Range request whose If-Range names version 1 then gets "full": 200 with all of
   * version 2 (RFC 9110), "412": 412 Precondition Failed, "ignore-if-range": a 206 of version 2.
   */
  changeAfterCut?: 'full' | '412' | 'ignore-if-range';
  /** The first this-many Range requests for the file get 503. */
  failRanges?: number;
  /** Send bodies in chunks of this size with a pause between them. */
  chunkBytes?: number;
  chunkDelayMs?: number;
}

export interface FlakyServer {
  origin: string;
  /** "GET /path" plus " range=..." and " if-range=..." when sent, in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

const kLastModified = [new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), new Date(Date.UTC(2024, 5, 6, 7, 8, 9))];

export async function startFlakyServer(prefix: string, directory: string, behaviour: FlakyBehaviour = {}): Promise<FlakyServer> {
  const requests: string[] = [];
  const state = { answers: 0, version: 1, failedRanges: 0 };
  const server = createServer((req, res) => {
    const { range, 'if-range': ifRange } = req.headers;
    requests.push(`${req.method} ${req.url}${range ? ` range=${range}` : ''}${ifRange ? ` if-range=${ifRange}` : ''}`);
    serve(req, res, prefix, directory, behaviour, state).catch(() => res.destroy());
  });
  return { ...(await listenOnLoopback(server)), requests };
}

async function serve(req: IncomingMessage, res: ServerResponse, prefix: string, directory: string, b: FlakyBehaviour,
                     state: { answers: number; version: number; failedRanges: number }): Promise<void> {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const name = path.startsWith(prefix) ? path.slice(prefix.length) : '';
  const full = join(directory, name);
  if (name === '' || !statSync(full, { throwIfNoEntry: false })?.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const flaky = name === (b.file ?? 'model.safetensors');
  const version = flaky ? state.version : 1;
  let bytes: Uint8Array = readFileSync(full);
  if (version === 2) bytes = bytes.map((x) => x ^ 0xff);
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (b.etag !== false) headers['etag'] = `"v${version}"`;
  if (b.lastModified) headers['last-modified'] = (kLastModified[version - 1] as Date).toUTCString();

  let start = 0;
  let end = bytes.length - 1;
  let status = 200;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range && b.ranges !== 'ignore') {
    if (flaky && state.failedRanges < (b.failRanges ?? 0)) {
      state.failedRanges++;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      return;
    }
    const ifRange = req.headers['if-range'];
    const current = ifRange === undefined || ifRange === headers['etag'] || ifRange === headers['last-modified'];
    if (!current && b.changeAfterCut === '412') {
      res.writeHead(412, { 'content-type': 'text/plain' }).end('precondition failed');
      return;
    }
    if (current || b.changeAfterCut === 'ignore-if-range') {
      start = Number(range[1]);
      end = range[2] === '' ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
      status = 206;
      headers['content-range'] = `bytes ${start}-${end}/${bytes.length}`;
    }
  }
  headers['content-length'] = String(end - start + 1);
  const cut = flaky ? b.cuts?.[state.answers++] : undefined;
  res.writeHead(status, headers);
  const stop = cut === undefined ? end + 1 : Math.min(cut, end + 1);
  const chunk = b.chunkBytes ?? 64 * 1024;
  for (let at = start; at < stop; at += chunk) {
    if (res.destroyed) return;
    const data = bytes.subarray(at, Math.min(at + chunk, stop));
    await new Promise<void>((resolve) => (res.write(data) ? resolve() : res.once('drain', resolve)));
    if (b.chunkDelayMs) await new Promise((r) => setTimeout(r, b.chunkDelayMs));
  }
  if (cut !== undefined) {
    // Let the bytes before the cut reach the client, then drop the connection mid-body.
    await new Promise((r) => setTimeout(r, 20));
    res.destroy();
    if (b.changeAfterCut !== undefined) state.version = 2;
    return;
  }
  res.end();
}
