// Which store a page gets: 'auto' takes the OPFS in every engine and falls back to the Cache API
// when the OPFS is missing or refused; a store named by options.cacheStore has no fallback;
// neither store at all is a refusal naming why each failed.
import { measuredCacheRead, openStore, type StorageGlobals } from '../../../web/src/browser/store/choose-store.js';
import type { CacheLike } from '../../../web/src/browser/store/cache-api-store.js';
import type { DirectoryLike } from '../../../web/src/browser/store/opfs-store.js';

const kChromeUa = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const kFirefoxUa = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0';
const kSafariUa = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15';

const cache: CacheLike = { match: async () => undefined, put: async () => undefined, delete: async () => false };
const folder: DirectoryLike = {
  getFileHandle: async () => { throw new Error('unused'); },
  getDirectoryHandle: async () => folder,
  removeEntry: async () => undefined,
};
/** An engine whose OPFS files can be written from the page (FileSystemFileHandle.createWritable). */
const kWritable = { FileSystemFileHandle: { prototype: { createWritable: () => undefined } } };
const securityError = (): never => { throw Object.assign(new Error('The operation is insecure.'), { name: 'SecurityError' }); };

test.each([['Chromium', kChromeUa], ['Firefox', kFirefoxUa], ['Safari', kSafariUa]])("'auto' in %s takes the OPFS when both stores are there", async (_engine, userAgent) => {
  const globals: StorageGlobals = { ...kWritable, caches: { open: async () => cache }, navigator: { userAgent, storage: { getDirectory: async () => folder } } };
  expect(await openStore(globals, 'x', 'auto')).toMatchObject({ kind: 'opfs' });
});

test("WebKit reads a Cache API entry as its body (it hands a stored body over whole); the others as a Blob in slices", () => {
  expect(measuredCacheRead(kSafariUa)).toBe('body');
  expect(measuredCacheRead(kChromeUa)).toBe('blob');
  expect(measuredCacheRead(kFirefoxUa)).toBe('blob');
});

test("'auto' falls back to the other store when the measured one is refused", async () => {
  const globals: StorageGlobals = { caches: { open: async () => cache }, navigator: { userAgent: kFirefoxUa, storage: { getDirectory: async () => securityError() } } };
  expect(await openStore(globals, 'x', 'auto')).toMatchObject({ kind: 'cache-api' });
  expect(await openStore({ ...globals, ...kWritable, navigator: { userAgent: kFirefoxUa, storage: { getDirectory: async () => folder } } }, 'x', 'auto'))
    .toMatchObject({ kind: 'opfs' });
});

test("'auto' in WebKit takes the OPFS where a page or its worker can write it, else the Cache API (WebKitGTK's defaults)", async () => {
  const globals: StorageGlobals = { caches: { open: async () => cache }, navigator: { userAgent: kSafariUa, storage: { getDirectory: async () => folder } } };
  expect(await openStore({ ...globals, ...kWritable }, 'x', 'auto')).toMatchObject({ kind: 'opfs' });
  expect(await openStore(globals, 'x', 'auto')).toMatchObject({ kind: 'cache-api' });
  expect(await openStore(globals, 'x', 'opfs')).toEqual({
    refused: 'the origin private file system: FileSystemFileHandle.createWritable is missing and no worker could open a sync access handle',
  });
});

test('a store named by options.cacheStore has no fallback; none at all is a refusal naming each reason', async () => {
  const globals: StorageGlobals = { caches: { open: async () => cache }, navigator: { userAgent: kChromeUa, storage: { getDirectory: async () => securityError() } } };
  expect(await openStore(globals, 'x', 'opfs')).toEqual({ refused: 'the origin private file system: SecurityError: The operation is insecure.' });
  expect(await openStore({ navigator: { userAgent: kSafariUa } }, 'x', 'auto')).toEqual({
    refused: 'the origin private file system: navigator.storage.getDirectory is missing; the Cache API: the Cache API is missing (an insecure context?)',
  });
});
