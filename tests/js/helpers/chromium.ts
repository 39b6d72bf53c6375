// Headless Debian Chromium as a Playwright Browser, for the tests that need Chromium's own features
// (WebGPU on SwiftShader: no WebGPU in Firefox or WebKitGTK on Linux). Tests that run in every
// engine use the engine seam, browsers/engines.mjs.
export { kChromium, kWebGpuFlags, launchChromiumBrowser as launchChromium } from './browsers/chromium.mjs';
