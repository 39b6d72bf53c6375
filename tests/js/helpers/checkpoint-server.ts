// A local HTTP server (127.0.0.1, random port) serving checkpoint folders under URL prefixes such
// as "/org/repo/resolve/main/", with switches for the failures the loader must handle: missing
// Content-Length, error statuses, a connection cut mid-body, a body that ends early, slow bodies.
import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenOnLoopback } from './loopback.js';

export interface ServerBehaviour {
  /** Files served without Content-Length (chunked). */
  noContentLength?: string[];
  /** Files answered with this status. */
  status?: Record<string, number>;
  /** Files whose connection is destroyed after this many body bytes (Content-Length says all). */
  cutAfter?: Record<string, number>;
  /** Files whose (chunked) body ends cleanly after this many bytes. */
  endAfter?: Record<string, number>;
  /** Answer Range: bytes=a-b requests with 206 and Content-Range. Default true. */
  ranges?: boolean;
  /** Send bodies in chunks of this size with a pause between them. */
  chunkBytes?: number;
  chunkDelayMs?: number;
  /** Files sent with this ETag; a request whose If-None-Match carries it is answered 304. */
  etag?: Record<string, string>;
}

export interface CheckpointServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** "GET /path" (plus " range=..." for Range requests), in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startCheckpointServer(routes: Record<string, string>, behaviour: ServerBehaviour = {}): Promise<CheckpointServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const range = req.headers.range;
    const conditional = req.headers['if-none-match'];
    requests.push(`${req.method} ${req.url}${range ? ` range=${range}` : ''}${conditional ? ` if-none-match=${conditional}` : ''}`);
    serve(req, res, routes, behaviour).catch(() => res.destroy());
  });
  return { ...(await listenOnLoopback(server)), requests };
}

async function serve(req: IncomingMessage, res: ServerResponse, routes: Record<string, string>, b: ServerBehaviour): Promise<void> {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const prefix = Object.keys(routes).find((p) => path.startsWith(p));
  const file = prefix === undefined ? '' : path.slice(prefix.length);
  const status = b.status?.[file];
  if (status !== undefined) {
    res.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}`);
    return;
  }
  let size: number;
  let fullPath: string;
  try {
    fullPath = join(routes[prefix as string] as string, file);
    const stat = statSync(fullPath);
    if (prefix === undefined || !stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (range && b.ranges !== false) {
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), size - 1);
    res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) });
    createReadStream(fullPath, { start, end }).pipe(res);
    return;
  }
  const etag = b.etag?.[file];
  if (etag !== undefined && req.headers['if-none-match'] === etag) {
    res.writeHead(304, { etag }).end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (etag !== undefined) headers['etag'] = etag;
  if (!b.noContentLength?.includes(file)) headers['content-length'] = String(size);
  res.writeHead(200, headers);
  const cut = b.cutAfter?.[file];
  const endAt = b.endAfter?.[file];
  const limit = cut ?? endAt ?? size;
  const chunk = b.chunkBytes ?? 64 * 1024;
  const stream = createReadStream(fullPath, { start: 0, end: Math.max(0, limit - 1), highWaterMark: chunk });
  for await (const data of stream) {
    if (res.destroyed) return;
    await new Promise<void>((resolve) => (res.write(data) ? resolve() : res.once('drain', resolve)));
    if (b.chunkDelayMs) await new Promise((r) => setTimeout(r, b.chunkDelayMs));
  }
  if (cut !== undefined) {
    res.destroy();
    return;
  }
  res.end();
}
