// Types of chromium.mjs's Playwright launcher, for the Chromium-only (WebGPU) tests.
import type { Browser } from 'playwright-core';

export const kChromium: string;
export const kWebGpuFlags: string[];
export function launchChromiumBrowser(options?: { webgpu?: boolean }): Promise<Browser>;
