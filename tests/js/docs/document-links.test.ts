// Guards the documents a user reads against drift: every relative link in README.md and docs/*.md
// must reach a file of the repository (and, with a #fragment, a heading of that file, as GitHub
// names its anchors), and README.md, the start page npm shows, must stay short: the details live
// in docs/.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const kRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const kReadmeMaxLines = 160;

// The documents checked, relative to the root with "/".
function documents(): string[] {
  const docs = readdirSync(join(kRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

// The files of the repository: tracked ones and new ones git does not ignore (build/ and dist/,
// which a clone lacks until it builds, never count). Without git, every file on disk.
function repoFiles(): Set<string> | null {
  try {
    const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];
    const listed = execFileSync('git', args, { cwd: kRoot, encoding: 'utf8' }).split('\0').filter((f) => f !== '');
    return new Set(listed.filter((f) => existsSync(join(kRoot, f))));
  } catch {
    return null;
  }
}

interface Link {
  where: string;   // document:line
  target: string;  // as written
}

// The inline links [text](target) and images outside fenced code blocks and inline code.
function links(document: string): Link[] {
  const found: Link[] = [];
  let fenced = false;
  readFileSync(join(kRoot, document), 'utf8').split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ where: `${document}:${i + 1}`, target: m[1]! });
  });
  return found;
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces turned into hyphens. */
function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

// The anchors of a document's headings (outside code blocks), numbered as GitHub numbers repeats.
function anchors(document: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(join(kRoot, document), 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (m === null) continue;
    const base = headingAnchor(m[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe('the documents a user reads', () => {
  const docs = documents();
  const files = repoFiles();
  const isRepoFile = (path: string): boolean =>
    files === null ? existsSync(join(kRoot, path)) && statSync(join(kRoot, path)).isFile() : files.has(path);

  test('GitHub anchors are computed as GitHub computes them', () => {
    expect(headingAnchor("Page load: one download, then the page's store")).toBe('page-load-one-download-then-the-pages-store');
    expect(headingAnchor('What `npm test` runs')).toBe('what-npm-test-runs');
    expect(headingAnchor('Threads and speed in Chromium, Firefox and WebKit')).toBe('threads-and-speed-in-chromium-firefox-and-webkit');
  });

  test('README.md and the usage guide link to the other documents, so that the check means something', () => {
    const targets = docs.flatMap(links).map((link) => link.target.split('#')[0]);
    expect(targets).toEqual(expect.arrayContaining(['docs/usage.md', 'docs/performance.md', 'docs/development.md', 'performance.md']));
  });

  test('every relative link in README.md and docs/*.md points to a file of the repository, and its #fragment to a heading there', () => {
    const dangling: string[] = [];
    for (const document of docs) {
      for (const link of links(document)) {
        if (isExternal(link.target)) continue;
        const [path, fragment] = link.target.split('#') as [string, string | undefined];
        const file = path === '' ? document : posix.normalize(posix.join(posix.dirname(document), decodeURI(path)));
        if (file.startsWith('../') || !isRepoFile(file)) {
          dangling.push(`${link.where}: ${link.target} (no file ${file})`);
        } else if (fragment !== undefined && file.endsWith('.md') && !anchors(file).has(fragment)) {
          dangling.push(`${link.where}: ${link.target} (no heading #${fragment} in ${file})`);
        }
      }
    }
    expect(dangling).toEqual([]);
  });

  test(`README.md, the start page npm shows, stays under ${kReadmeMaxLines} lines`, () => {
    const lines = readFileSync(join(kRoot, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(kReadmeMaxLines);
  });
});
