// A dedicated worker that runs one page-store case (page-store-cases.ts) where the package's own
// worker ({ worker: true }) runs its store: the page starts it as a module worker, posts
// { name, store, hubUrl } and gets the case's result (or its error) back.
import { runCase, type CaseName, type StoreName } from './page-store-cases.js';

onmessage = async (event: MessageEvent<{ name: CaseName; store: StoreName; hubUrl: string }>) => {
  const { name, store, hubUrl } = event.data;
  try {
    postMessage({ result: await runCase(name, store, hubUrl) });
  } catch (error) {
    postMessage({ error: `${(error as Error).name}: ${(error as Error).message}` });
  }
};
