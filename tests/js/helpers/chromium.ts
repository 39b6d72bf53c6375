// Headless Debian Chromium driven by playwright-core (no browser download:
// docs/toolchain.md "JavaScript tooling"). scripts/setup.sh installs the chromium package.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const kChromium = process.env['LAYA_CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * The flags under which headless Debian Chromium exposes WebGPU on the CPU (SwiftShader, adapter
 * "google swiftshader", no shader-f16) to localhost pages, where no GPU is.
 */
export const kWebGpuFlags = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'];

/** `webgpu`: launch with kWebGpuFlags (and without --disable-gpu) so pages get a WebGPU adapter. */
export async function launchChromium(options: { webgpu?: boolean } = {}): Promise<Browser> {
  if (!existsSync(kChromium)) {
    throw new Error(`browser tests need Chromium at ${kChromium} (apt-get install chromium, or set LAYA_CHROMIUM)`);
  }
  return chromium.launch({
    executablePath: kChromium,
    headless: true,
    args: ['--no-sandbox', ...(options.webgpu === true ? kWebGpuFlags : ['--disable-gpu']), '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}
