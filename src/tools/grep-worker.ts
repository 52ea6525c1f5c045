import { Worker } from 'node:worker_threads';

export interface SearchOptions {
  files: Array<{ path: string; name: string }>;
  source: string;
  flags: string;
  maxMatches: number;
  /** Files found larger when opened are skipped. */
  maxFileBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface SearchMatch {
  name: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  /** The match cap was reached; more matches may exist. */
  capped: boolean;
  timedOut: boolean;
}

// Plain JavaScript run in a worker thread (eval), so it needs no loader and works from source and
// from the build alike. A runaway regex blocks only the worker, which the time limit terminates.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { closeSync, constants, fstatSync, openSync, readFileSync } = require('node:fs');
const { files, source, flags, maxMatches, maxFileBytes } = workerData;
const regex = new RegExp(source, flags);
// A file swapped for a FIFO since it was listed must not block the worker in open() or read(),
// where terminating it cannot reach; so it is opened without waiting and read only if regular.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW || 0);
function readRegular(path) {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const info = fstatSync(fd);
    return info.isFile() && info.size <= maxFileBytes ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}
const matches = [];
let capped = false;
search: for (const file of files) {
  let buffer;
  try { buffer = readRegular(file.path); } catch { continue; }
  if (buffer === undefined || buffer.subarray(0, 8192).includes(0)) continue;
  const lines = buffer.toString('utf8').split('\\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (!regex.test(line)) continue;
    if (matches.length >= maxMatches) { capped = true; break search; }
    const text = line.length > 300 ? line.slice(0, 300) + ' […]' : line;
    matches.push({ name: file.name, line: index + 1, text: text.replace(/\\r$/, '') });
  }
}
parentPort.postMessage({ matches, capped });
`;

/** Searches the files line by line in a worker thread, stopping it at the time limit or on abort. */
export function searchFiles(options: SearchOptions): Promise<SearchResult> {
  options.signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: {
        files: options.files,
        source: options.source,
        flags: options.flags,
        maxMatches: options.maxMatches,
        maxFileBytes: options.maxFileBytes,
      },
    });
    let settled = false;
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      action();
      void worker.terminate();
    };
    const onAbort = (): void => settle(() => reject(options.signal.reason));
    const timer = setTimeout(
      () => settle(() => resolve({ matches: [], capped: false, timedOut: true })),
      options.timeoutMs,
    );
    options.signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (message: { matches: SearchMatch[]; capped: boolean }) =>
      settle(() => resolve({ ...message, timedOut: false })),
    );
    worker.once('error', (error) => settle(() => reject(error)));
    worker.once('exit', () => settle(() => reject(new Error('grep worker exited early'))));
  });
}
