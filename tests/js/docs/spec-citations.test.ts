// Guards the citations of docs/laya-spec.md against drift: every `laya-spec §N.N` in the sources,
// tests, scripts, benchmarks and tools must name a section heading of that document, and nothing
// may still cite the document in the old bare "spec" form, which named a file outside the repo.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const kRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const kSpecPath = join(kRoot, 'docs', 'laya-spec.md');

// Where citations live; tests/data holds data received from elsewhere, not the project's text.
const kScannedDirs = ['cpp', 'web/src', 'tests', 'scripts', 'bench', 'tools'];
const kScannedFiles = ['CMakeLists.txt', 'README.md', 'docs/architecture.md'];
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

// The section numbers of the document's headings: "## 0. Target…" gives 0, "### 3.3 One…" 3.3.
function specSections(): Set<string> {
  const sections = new Set<string>();
  for (const line of readFileSync(kSpecPath, 'utf8').split('\n')) {
    const m = /^#{2,4}\s+(\d+(?:\.\d+)?)\.?\s/.exec(line);
    if (m) sections.add(m[1]!);
  }
  return sections;
}

describe('laya-spec citations', () => {
  const files = scannedFiles();
  const sections = specSections();

  test('the spec has a heading for each top-level section 0 to 8 and their subsections', () => {
    for (const top of ['0', '1', '2', '3', '4', '5', '6', '7', '8']) expect(sections).toContain(top);
    for (const sub of ['1.5', '3.3', '3.10', '4.4', '5.8', '7.13', '7.23']) expect(sections).toContain(sub);
  });

  test('the sources cite the spec often enough that the check means something', () => {
    expect(matches(/laya-spec §/g, files).length).toBeGreaterThanOrEqual(50);
  });

  test('every cited section, and both ends of every cited range, is a heading of docs/laya-spec.md', () => {
    const dangling: string[] = [];
    for (const hit of matches(kSectionRef, files)) {
      const m = /^§(\d+(?:\.\d+)?)(?:[-–](\d+(?:\.\d+)?))?$/.exec(hit.text)!;
      for (const section of [m[1], m[2]]) {
        if (section !== undefined && !sections.has(section)) dangling.push(`${hit.where}: ${hit.text}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  test('no file cites the spec in the old bare form or without the section sign', () => {
    const old = [...matches(kOldForm, files), ...matches(kMissingSign, files)];
    expect(old.map((hit) => `${hit.where}: ${hit.text}`)).toEqual([]);
  });
});
