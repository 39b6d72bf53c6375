// bench:browsers' Node row, in a fresh process (its memory its own): the same measure() as the pages.
// Usage: node bench/browsers/node-child.mjs <checkpoint dir> <threads|default> <runs> <dist dir>
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './measure.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [dir, threadsText, runsText, dist = path.join(root, 'dist')] = process.argv.slice(2);
const { load } = await import(path.join(dist, 'index.node.js'));
const threads = threadsText === 'default' ? undefined : Number(threadsText);
const result = await measure(load, { directory: dir }, { threads, runs: Number(runsText) });
console.log(JSON.stringify({ ...result, version: `Node ${process.version}` }));
