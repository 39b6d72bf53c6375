// Headless Debian Chromium driven by playwright-core (no browser download:
// docs/toolchain.md "JavaScript tooling"). scripts/setup.sh installs the chromium package.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const kChromium = process.env['LAYA_CHROMIUM'] ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(kChromium)) {
    throw new Error(`browser tests need Chromium at ${kChromium} (apt-get install chromium, or set LAYA_CHROMIUM)`);
  }
  return chromium.launch({
    executablePath: kChromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync'],
  });
}
