// A stand-in for the Hugging Face Hub on another origin than the page: checkpoint folders under
// "/<repo>/resolve/<revision>/", answered with the CORS headers the Hub sends (the page's origin
// echoed, Vary: Origin, the Hub's Access-Control-Expose-Headers, preflights answered), and the
// weights redirected to a second origin playing the Hub's CDN (Access-Control-Allow-Origin: *), as
// the Hub redirects large files. The Hub sends no Cross-Origin-Resource-Policy; `corp` adds one, to
// compare. Plain ES module (types: hub-server.d.mts) so a script can measure with it too.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const kExposed = 'X-Repo-Commit,X-Request-Id,X-Error-Code,X-Error-Message,X-Total-Count,ETag,Link,Accept-Ranges,' +
  'Content-Range,X-Linked-Size,X-Linked-ETag,X-Xet-Hash';

function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

function corsHeaders(req, allowOrigin, options) {
  const headers = { 'access-control-allow-origin': allowOrigin, 'access-control-expose-headers': kExposed, 'access-control-max-age': '86400' };
  if (allowOrigin !== '*') headers.vary = 'Origin';
  if (options.corp !== undefined) headers['cross-origin-resource-policy'] = options.corp;
  if (req.method === 'OPTIONS') {
    headers['access-control-allow-methods'] = 'GET, HEAD, OPTIONS';
    const asked = req.headers['access-control-request-headers'];
    if (asked !== undefined) headers['access-control-allow-headers'] = asked;
  }
  return headers;
}

/** Sends `file` (Range requests answered) with `headers`. */
function sendFile(req, res, file, headers) {
  let size;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch {
    res.writeHead(404, { ...headers, 'content-type': 'text/plain', 'x-error-code': 'EntryNotFound' }).end('Entry not found');
    return;
  }
  const etag = `"${size.toString(16)}"`;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ...headers, etag }).end();
    return;
  }
  const start = range ? Number(range[1]) : 0;
  const end = range && range[2] !== '' ? Math.min(Number(range[2]), size - 1) : size - 1;
  res.writeHead(range ? 206 : 200, {
    ...headers, etag, 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream', 'content-length': String(end - start + 1),
    ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file, { start, end }).on('error', () => res.destroy()).pipe(res);
}

/**
 * Serves `repos` ({ 'org/name': folder }) at `<origin>/<repo>/resolve/<any revision>/<file>`.
 * options.corp: a Cross-Origin-Resource-Policy value to add to every answer (the Hub sends none).
 */
export async function startHub(repos, options = {}) {
  const requests = [];
  const cdn = await listen((req, res) => {
    requests.push(`cdn ${req.method} ${req.url}`);
    const headers = corsHeaders(req, '*', options);
    if (req.method === 'OPTIONS') return res.writeHead(204, headers).end();
    const [, repo, file] = /^\/blobs\/([^/]+\/[^/]+)\/(.+)$/.exec(decodeURIComponent(new URL(req.url, 'http://x').pathname)) ?? [];
    const folder = repos[repo];
    if (folder === undefined || file.includes('..')) return res.writeHead(404, headers).end('not found');
    sendFile(req, res, join(folder, file), headers);
  });
  const hub = await listen((req, res) => {
    requests.push(`hub ${req.method} ${req.url}`);
    const headers = corsHeaders(req, req.headers.origin ?? 'https://huggingface.co', options);
    if (req.method === 'OPTIONS') return res.writeHead(204, headers).end();
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const [, repo, file] = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(path) ?? [];
    const folder = repos[repo];
    if (folder === undefined || file.includes('..')) {
      return res.writeHead(404, { ...headers, 'content-type': 'text/plain', 'x-error-code': 'RepoNotFound' }).end('Repository not found');
    }
    if (file.endsWith('.safetensors')) {
      return res.writeHead(302, { ...headers, location: `${cdn.origin}/blobs/${repo}/${file}` }).end();
    }
    sendFile(req, res, join(folder, file), headers);
  });
  const close = (server) => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return { origin: hub.origin, cdnOrigin: cdn.origin, requests, close: async () => { await Promise.all([close(hub.server), close(cdn.server)]); } };
}
