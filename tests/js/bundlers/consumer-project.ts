// A page author's project in a temporary folder: the package from its tarball (`npm pack` of this
// repository, unpacked into node_modules/laya-wasm as npm would install it, with no network), the
// page of consumer/, and the bundlers run from this repository's node_modules (Vite and webpack 5
// are devDependencies) with the project as their working directory, so they resolve laya-wasm the
// way an author's build does.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kRepoRoot } from '../helpers/fixtures.js';

const kConsumer = join(dirname(fileURLToPath(import.meta.url)), 'consumer');

/** Runs a command; rejects with its output when it fails, so the test names what went wrong. */
export function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 1 << 26 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(`${stdout}\n${stderr}`);
    });
  });
}

/** The files a bundler can only find in the package if they were packed. */
const kPackedWasmFiles = ['laya-core.mjs', 'laya-core-relaxed.mjs', 'laya-core-mt.mjs', 'laya-core-mt-relaxed.mjs',
  'laya-core-mt.worker.mjs', 'laya-core-mt-relaxed.worker.mjs', 'laya-core.wasm', 'laya-core-relaxed.wasm',
  'laya-core-mt.wasm', 'laya-core-mt-relaxed.wasm'];

/** A fresh project with the packed package installed in it; returns its folder. */
export async function createConsumerProject(): Promise<string> {
  for (const built of ['dist/index.browser.js', ...kPackedWasmFiles.map((f) => `dist/wasm/${f}`)]) {
    if (!existsSync(join(kRepoRoot, built))) throw new Error(`${built} is missing: run npm run build first`);
  }
  const work = mkdtempSync(join(tmpdir(), 'laya-bundlers-'));
  const packed = await run('npm', ['pack', '--silent', '--pack-destination', work], kRepoRoot);
  const tarball = join(work, packed.trim().split('\n').at(-1)?.trim() ?? '');
  const project = join(work, 'project');
  const installed = join(project, 'node_modules', 'laya-wasm');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], work);
  const shipped = readdirSync(join(installed, 'dist', 'wasm'));
  const missing = kPackedWasmFiles.filter((f) => !shipped.includes(f));
  if (missing.length > 0) throw new Error(`the tarball lacks dist/wasm/${missing.join(', dist/wasm/')}`);
  for (const file of readdirSync(kConsumer)) copyFileSync(join(kConsumer, file), join(project, file));
  return project;
}

export type Bundler = 'vite' | 'webpack';

/** Bundles the project's page; returns the output folder, which is served as it is. */
export async function bundle(bundler: Bundler, project: string): Promise<string> {
  if (bundler === 'vite') {
    // No config file: index.html is the entry, dist/ the output.
    await run(process.execPath, [join(kRepoRoot, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], project);
    return join(project, 'dist');
  }
  const output = await run(process.execPath, [join(kRepoRoot, 'node_modules', 'webpack-cli', 'bin', 'cli.js'),
    '--config', 'webpack.config.mjs'], project);
  if (/\bERROR\b|Critical dependency/.test(output)) throw new Error(`webpack reported problems:\n${output}`);
  // The page's own HTML (webpack emits scripts only; authors add theirs or use a plugin).
  const site = join(project, 'site-webpack');
  copyFileSync(join(project, 'webpack.html'), join(site, 'index.html'));
  return site;
}
