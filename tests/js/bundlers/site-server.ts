// Serves a bundler's output folder as a site on 127.0.0.1 (random port), cross-origin isolated
// (COOP/COEP, so the page may run the pthreads build), plus the tiny reference checkpoint at /ckpt/
// and its fixture at /fixture/, and nothing else: a file the bundler did not emit is a 404. Every
// request is logged with its status, so a test can tell what the page fetched.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { listenOnLoopback } from '../helpers/loopback.js';

export interface SiteServer {
  origin: string;
  /** Every request, in order: its path and the status answered. */
  requests: { path: string; status: number }[];
  close(): Promise<void>;
}

const kTypes: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/** `mounts` maps URL prefixes ("/", "/ckpt/") to folders; the longest matching prefix wins. */
export async function startSiteServer(mounts: Record<string, string>): Promise<SiteServer> {
  const requests: SiteServer['requests'] = [];
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const headers = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
    let status = 404;
    try {
      const prefix = prefixes.find((p) => path.startsWith(p)) as string;
      const file = join(mounts[prefix] as string, normalize(path.slice(prefix.length)));
      if (statSync(file).isFile()) {
        status = 200;
        const body = readFileSync(file);
        res.writeHead(200, { ...headers, 'content-type': kTypes[extname(file)] ?? 'application/octet-stream',
          'content-length': String(body.byteLength) });
        res.end(body);
      }
    } catch {
      // status stays 404
    }
    if (status === 404) res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
    requests.push({ path, status });
  });
  return { ...(await listenOnLoopback(server)), requests };
}
