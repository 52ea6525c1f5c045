// How to start a worker thread whose code is a module of this project, both when the project runs
// from src/ under tsx and when it runs from the esbuild bundle in dist/.
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';

export interface WorkerEntry {
  url: URL;
  /** For sources run by tsx: code that registers tsx in the worker and then imports `url`. */
  bootstrap: string | undefined;
}

/** The extension of a module URL: .ts under tsx, .js when built. */
export function extensionOf(url: string): string {
  return url.slice(url.lastIndexOf('.'));
}

/** How to start a worker from `url`; a .ts file (run by tsx) gets a bootstrap that registers tsx. */
export function workerEntry(url: URL): WorkerEntry {
  if (extensionOf(url.href) !== '.ts') return { url, bootstrap: undefined };
  // Node 20 does not apply `--import` loader hooks inside workers, so the worker registers tsx itself.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const bootstrap = `import(${tsx}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return { url, bootstrap };
}

/**
 * The entry of worker module `name` next to the module at `moduleUrl`, with that module's extension.
 * The build puts every worker entry next to dist/main.js, so this holds in both layouts as long as
 * the worker's source sits in the same folder as the code that starts it.
 */
export function siblingWorker(name: string, moduleUrl: string): WorkerEntry {
  return workerEntry(new URL(`./${name}${extensionOf(moduleUrl)}`, moduleUrl));
}

export function startWorker(entry: WorkerEntry, options: WorkerOptions): Worker {
  return entry.bootstrap
    ? new Worker(entry.bootstrap, { ...options, eval: true })
    : new Worker(entry.url, options);
}
