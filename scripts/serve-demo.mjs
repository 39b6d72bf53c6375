#!/usr/bin/env node
// A tiny static server for the demo (nothing runs server-side): build/demo, dist/ (hence
// /dist/wasm/) and build/default-checkpoint. Cross-origin isolated by default (COOP/COEP: the page
// gets SharedArrayBuffer, so the threaded module); --no-isolation serves without those headers.
// docs/demo-isolation.md says which COEP value each engine takes and why cross-origin checkpoint
// loads still work.
// Usage: node scripts/serve-demo.mjs [--port 8080] [--no-isolation] [--coep V] [--mount /prefix/=dir]...
// Prints "laya-wasm demo: <url>" once listening (--port 0 picks a free port).
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const kRepoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const kTypes = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.map': 'application/json', '.png': 'image/png',
};

function parseArgs(argv) {
  const options = { port: 8080, host: '127.0.0.1', isolated: true, coep: 'require-corp', mounts: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`serve-demo: ${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--port') options.port = Number(value());
    else if (arg === '--host') options.host = value();
    else if (arg === '--no-isolation') options.isolated = false;
    else if (arg === '--coep') options.coep = value();
    else if (arg === '--mount') {
      const [prefix, dir] = value().split('=');
      if (!prefix?.startsWith('/') || !prefix.endsWith('/') || !dir) {
        throw new Error('serve-demo: --mount takes /prefix/=directory');
      }
      options.mounts.push([prefix, resolve(dir)]);
    } else throw new Error(`serve-demo: unknown option ${arg}`);
  }
  if (!Number.isInteger(options.port) || options.port < 0) throw new Error('serve-demo: --port must be a port number');
  if (!['require-corp', 'credentialless'].includes(options.coep)) throw new Error('serve-demo: --coep takes require-corp or credentialless');
  return options;
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  // Longest prefix first, so an extra mount under "/" wins over the page folder.
  const mounts = [...options.mounts,
    ['/dist/', join(kRepoRoot, 'dist')],
    ['/default-checkpoint/', join(kRepoRoot, 'build', 'default-checkpoint')],
    ['/', join(kRepoRoot, 'build', 'demo')],
  ].sort((a, b) => b[0].length - a[0].length);

  const server = createServer((req, res) => {
    const headers = { 'cache-control': 'no-cache' };
    if (options.isolated) {
      headers['cross-origin-opener-policy'] = 'same-origin';
      headers['cross-origin-embedder-policy'] = options.coep;
      headers['cross-origin-resource-policy'] = 'same-origin';
    }
    const fail = (status, text) => res.writeHead(status, { ...headers, 'content-type': 'text/plain' }).end(text);
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, 'method not allowed');
    let path;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return fail(400, 'bad path');
    }
    if (path.endsWith('/')) path += 'index.html';
    const mount = mounts.find(([prefix]) => path.startsWith(prefix));
    if (mount === undefined) return fail(404, 'not found');
    const root = mount[1];
    const file = join(root, normalize(path.slice(mount[0].length)));
    if (file !== root && !file.startsWith(root + sep)) return fail(403, 'outside the served folders');
    let size;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) return fail(404, 'not found');
      size = stat.size;
    } catch {
      return fail(404, 'not found');
    }
    res.writeHead(200, {
      ...headers, 'content-type': kTypes[extname(file)] ?? 'application/octet-stream', 'content-length': String(size),
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
  server.on('error', (error) => {
    console.error(`serve-demo: cannot listen on ${options.host}:${options.port}: ${error.message}` +
      (error.code === 'EADDRINUSE' ? ' (another server has the port: pass --port N)' : ''));
    process.exit(1);
  });
  server.listen(options.port, options.host, () => {
    const { port } = server.address();
    console.log(`laya-wasm demo: http://${options.host}:${port}/ ` +
      (options.isolated ? `(cross-origin isolated: COOP same-origin, COEP ${options.coep})` : '(not cross-origin isolated: --no-isolation)'));
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main();
