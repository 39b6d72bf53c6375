// A private X display for an engine that needs one (WebKitGTK's MiniBrowser): Xvfb picks a free
// display number itself (-displayfd) and writes it back, so parallel test files never collide and
// the tests need no xvfb-run wrapper.
import { existsSync } from 'node:fs';
import { spawnGroup, stopGroup } from './child-processes.mjs';

export const kXvfb = process.env.LAYA_XVFB ?? '/usr/bin/Xvfb';

/** Starts Xvfb; resolves to { display: ':N', stop() }. */
export async function startXvfb() {
  if (!existsSync(kXvfb)) {
    throw new Error(`WebKit tests need a virtual display, Xvfb at ${kXvfb}: apt-get install xvfb (bash scripts/setup.sh does)`);
  }
  const child = spawnGroup(kXvfb, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x1400x24'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const display = await new Promise((resolve, reject) => {
    let text = '';
    child.stdio[3].on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    child.once('exit', () => reject(new Error(`Xvfb exited before it had a display: ${stderr.trim()}`)));
  });
  return { display, stop: () => stopGroup(child) };
}
