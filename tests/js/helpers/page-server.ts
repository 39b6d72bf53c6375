// A local HTTP server (127.0.0.1, random port) for browser tests: the package's TypeScript
// sources and test helpers transpiled to ES modules on request (so the browser runs the sources
// without a bundler, and any `node:` import would fail to load), static folders, and a blank page.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import ts from 'typescript';
import { kRepoRoot } from './fixtures.js';
import { listenOnLoopback } from './loopback.js';

export interface PageServer {
  origin: string;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

const kTypes: Record<string, string> = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.html': 'text/html',
};

export interface PageServerOptions {
  /**
   * Serve every response with COOP same-origin and COEP require-corp, so pages are cross-origin
   * isolated (SharedArrayBuffer, the pthreads module).
   */
  isolated?: boolean;
}

/** `statics` maps URL prefixes (e.g. "/org/tiny/resolve/main/") to folders. */
export async function startPageServer(statics: Record<string, string>, options: PageServerOptions = {}): Promise<PageServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    if (options.isolated) {
      res.setHeader('cross-origin-opener-policy', 'same-origin');
      res.setHeader('cross-origin-embedder-policy', 'require-corp');
    }
    try {
      if (path === '/' || path === '/index.html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head></head><body></body></html>');
        return;
      }
      if ((path.startsWith('/web/src/') || path.startsWith('/tests/js/')) && path.endsWith('.js')) {
        const source = readFileSync(join(kRepoRoot, normalize(path).replace(/\.js$/, '.ts')), 'utf8');
        const output = ts.transpileModule(source, {
          compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
        }).outputText;
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(output);
        return;
      }
      // The package's data files (the router's tables), imported as JSON modules.
      if (path.startsWith('/web/src/') && path.endsWith('.json')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(readFileSync(join(kRepoRoot, normalize(path)), 'utf8'));
        return;
      }
      const prefix = Object.keys(statics).find((p) => path.startsWith(p));
      if (prefix === undefined) throw new Error('no route');
      const file = join(statics[prefix] as string, normalize(path.slice(prefix.length)));
      const size = statSync(file).size;
      res.writeHead(200, { 'content-type': kTypes[extname(file)] ?? 'application/octet-stream', 'content-length': String(size) });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return { ...(await listenOnLoopback(server)), requests };
}
