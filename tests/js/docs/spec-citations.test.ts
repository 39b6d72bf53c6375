// Guards the citations of docs/laya-spec.md against drift: every `laya-spec §N.N` in the sources,
// tests, scripts, benchmarks, tools and documents must name a section heading of that document
// (a `laya-spec-<name> §N` one of docs/laya-spec-<name>.md, which must then exist), and nothing
// may still cite the document in the old bare "spec" form, which named a file outside the repo.
// Likewise for every other document: each `*.md` named anywhere in the tree must be a file of the
// repository, and nothing may point at the shared folder beside the checkout or at an absolute
// path of the build machine, which a clone does not have.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const kRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const kSpec = 'laya-spec';

// Where citations live; tests/data holds data received from elsewhere, not the project's text.
const kScannedDirs = ['cpp', 'web/src', 'tests', 'scripts', 'bench', 'tools'];
// Every document but the specs themselves, whose own section numbers are headings, not citations.
const kScannedFiles = ['CMakeLists.txt', 'README.md',
  ...readdirSync(join(kRoot, 'docs')).filter((name) => name.endsWith('.md') && !name.startsWith(kSpec)).map((name) => `docs/${name}`)];
const kSkippedDirs = new Set(['node_modules', 'build', 'dist', 'tests/data']);
const kTextExtensions = new Set(['.h', '.cc', '.cpp', '.ts', '.js', '.mjs', '.cjs', '.py', '.sh', '.md', '.txt', '.cmake']);

// One section reference: a number or a range, with a hyphen or an en dash ("§3.2-3.4", "§4-5").
const kSectionRef = /§(\d+(?:\.\d+)?)(?:[-–](\d+(?:\.\d+)?))?/g;
// "spec" followed by a section number, not preceded by "laya-" (nor part of a longer word).
const kOldForm = /(?<![\w-])spec\s+\d/gi;
// The new prefix without its section sign.
const kMissingSign = /laya-spec\s+\d/g;

interface Hit {
  where: string;  // path:line
  text: string;
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(kRoot, path).split('\\').join('/');
    if (entry.isDirectory()) {
      if (!kSkippedDirs.has(entry.name) && !kSkippedDirs.has(rel)) walk(path, out);
    } else if (entry.isFile() && (kTextExtensions.has(extname(entry.name)) || entry.name === 'CMakeLists.txt')) {
      out.push(path);
    }
  }
}

function scannedFiles(): string[] {
  const files: string[] = [];
  for (const dir of kScannedDirs) walk(join(kRoot, dir), files);
  for (const file of kScannedFiles) files.push(join(kRoot, file));
  return files;
}

function matches(pattern: RegExp, files: string[]): Hit[] {
  const hits: Hit[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(pattern)) {
        hits.push({ where: `${relative(kRoot, file)}:${i + 1}`, text: m[0] });
      }
    });
  }
  return hits;
}

// The section numbers of a spec's headings: "## 0. Target…" gives 0, "### 3.3 One…" 3.3; null when
// docs/<spec>.md does not exist.
function specSections(spec: string): Set<string> | null {
  const path = join(kRoot, 'docs', `${spec}.md`);
  if (!existsSync(path)) return null;
  const sections = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^#{2,4}\s+(\d+(?:\.\d+)?)\.?\s/.exec(line);
    if (m) sections.add(m[1]!);
  }
  return sections;
}

// Each section reference with the spec it cites: the last "laya-spec" or "laya-spec-<name>" before
// it on its line ("laya-spec-current §N, §M" cites laya-spec-current twice), else laya-spec.
function citations(files: string[]): Array<Hit & { spec: string }> {
  const hits: Array<Hit & { spec: string }> = [];
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      for (const m of line.matchAll(kSectionRef)) {
        const before = [...line.slice(0, m.index).matchAll(/laya-spec(?:-[a-z]+)?/g)];
        hits.push({ where: `${relative(kRoot, file)}:${i + 1}`, text: m[0], spec: before.at(-1)?.[0] ?? kSpec });
      }
    });
  }
  return hits;
}

describe('laya-spec citations', () => {
  const files = scannedFiles();
  const sections = specSections(kSpec)!;

  test('the spec has a heading for each top-level section 0 to 8 and their subsections', () => {
    for (const top of ['0', '1', '2', '3', '4', '5', '6', '7', '8']) expect(sections).toContain(top);
    for (const sub of ['1.5', '3.3', '3.10', '4.4', '5.8', '7.13', '7.23']) expect(sections).toContain(sub);
  });

  test('the sources cite the spec often enough that the check means something', () => {
    expect(matches(/laya-spec §/g, files).length).toBeGreaterThanOrEqual(50);
  });

  test('every cited section, and both ends of every cited range, is a heading of the spec it cites', () => {
    const dangling: string[] = [];
    const specs = new Map<string, Set<string> | null>();
    for (const hit of citations(files)) {
      if (!specs.has(hit.spec)) specs.set(hit.spec, specSections(hit.spec));
      const headings = specs.get(hit.spec)!;
      if (headings === null) {
        dangling.push(`${hit.where}: ${hit.spec} ${hit.text} (no docs/${hit.spec}.md)`);
        continue;
      }
      const m = /^§(\d+(?:\.\d+)?)(?:[-–](\d+(?:\.\d+)?))?$/.exec(hit.text)!;
      for (const section of [m[1], m[2]]) {
        if (section !== undefined && !headings.has(section)) dangling.push(`${hit.where}: ${hit.spec} ${hit.text}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  test('no file cites the spec in the old bare form or without the section sign', () => {
    const old = [...matches(kOldForm, files), ...matches(kMissingSign, files)];
    expect(old.map((hit) => `${hit.where}: ${hit.text}`)).toEqual([]);
  });
});

// A document name: a path ending in `.md` ("toolchain.md", "docs/architecture.md", or one that
// climbs out with "../"), not a piece of a longer token (a URL, "*.md", "a.mdx").
const kDocName = /(?<![\w.\/:~-])[\w.~\/-]*[\w-]\.md(?![\w-])/g;
// The folder beside the checkout that only the build machine has, and that machine's absolute
// paths (spelled as patterns so that this file does not mention them itself).
const kOutsidePath = /\.\.\/shared\b|\/work\//g;
// Names that are not citations of this repository's documents, per file (this file lists them all):
// a path inside the npm tarball, which the script checks; upstream's own files, named in the list
// of sources the spec was written from.
const kThisFile = relative(kRoot, fileURLToPath(import.meta.url)).split(sep).join('/');
const kNotCitations = new Map<string, ReadonlySet<string>>([
  ['scripts/package-test.sh', new Set(['package/README.md'])],
  ['docs/laya-spec-current.md', new Set(['CHANGELOG.md'])],
  ['docs/laya-spec.md', new Set([
    'spec/03-api.md', 'spec/04-semantics.md', 'spec/05-model.md', 'spec/06-input.md',
    'spec/15-testing.md', 'CHANGELOG.md', 'packages/laya-fixtures/README.md',
  ])],
]);
// Without git (an exported tree), the folders .gitignore leaves out are skipped by hand.
const kUnversionedDirs = new Set(['.git', 'node_modules', 'build', 'dist', 'web/dist', 'bench/out',
  '.cache']);

function walkAll(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(kRoot, path).split(sep).join('/');
    if (entry.isDirectory()) {
      if (!kUnversionedDirs.has(entry.name) && !kUnversionedDirs.has(rel)) walkAll(path, out);
    } else if (entry.isFile() && !entry.name.endsWith('.tgz')) {
      out.push(rel);
    }
  }
}

// The files of the repository, relative to the root with "/": tracked ones and new ones git does
// not ignore (another change may add both a document and its first citation).
function repoFiles(): Set<string> {
  let listed: string[];
  try {
    const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];
    listed = execFileSync('git', args, { cwd: kRoot, encoding: 'utf8' }).split('\0').filter((f) => f !== '');
  } catch {
    listed = [];
    walkAll(kRoot, listed);
  }
  return new Set(listed.filter((f) => existsSync(join(kRoot, f)) && statSync(join(kRoot, f)).isFile()));
}

// The project's own text: every repository file but received data (tests/data) and binary files.
function ownTextFiles(files: Set<string>): Map<string, string> {
  const texts = new Map<string, string>();
  for (const file of files) {
    if (file.startsWith('tests/data/')) continue;
    const text = readFileSync(join(kRoot, file), 'utf8');
    if (!text.includes('\0')) texts.set(file, text);
  }
  return texts;
}

function lineHits(pattern: RegExp, texts: Map<string, string>): Array<Hit & { file: string }> {
  const hits: Array<Hit & { file: string }> = [];
  for (const [file, text] of texts) {
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(pattern)) hits.push({ file, where: `${file}:${i + 1}`, text: m[0] });
    });
  }
  return hits;
}

// A bare name is looked for in docs/, beside the citing file, then at the root; a name with a
// folder the same way. Only a file of the repository counts: a path that climbs out of the root
// never does, even where the build machine happens to have it.
function resolvesInRepo(name: string, citingFile: string, files: Set<string>): boolean {
  for (const base of ['docs', dirname(citingFile), '.']) {
    const rel = relative(kRoot, resolve(kRoot, base, name)).split(sep).join('/');
    if (!rel.startsWith('../') && !isAbsolute(rel) && files.has(rel)) return true;
  }
  return false;
}

describe('documents named in the tree', () => {
  const files = repoFiles();
  const texts = ownTextFiles(files);
  const allExempt = new Set([...kNotCitations.values()].flatMap((set) => [...set]));
  const exempt = (file: string): ReadonlySet<string> =>
    file === kThisFile ? allExempt : kNotCitations.get(file) ?? new Set();
  const names = lineHits(kDocName, texts).filter((hit) => !exempt(hit.file).has(hit.text));

  test('the tree names documents often enough, the toolchain notes among them, that the check means something', () => {
    expect(texts.size).toBeGreaterThanOrEqual(200);
    expect(names.length).toBeGreaterThanOrEqual(30);
    expect(names.map((hit) => hit.text)).toContain('docs/toolchain.md');
  });

  test('every *.md document named in a source, test, script or doc is a file of the repository', () => {
    const dangling = names.filter((hit) => !resolvesInRepo(hit.text, hit.file, files));
    expect(dangling.map((hit) => `${hit.where}: ${hit.text}`)).toEqual([]);
  });

  test('no file points at the shared folder beside the checkout or at an absolute path of the build machine', () => {
    expect(lineHits(kOutsidePath, texts).map((hit) => `${hit.where}: ${hit.text}`)).toEqual([]);
  });
});
