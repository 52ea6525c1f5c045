// Memory search latency over 10,000 notes (50,000 lines: 200 dated files of 50 notes of 5 lines):
// p50/p95 in-process (MemoryIndex.search) and over HTTP (GET /agents/{id}/memory/search on a
// server listening on loopback), one query at a time. Prints one JSON line.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestApp } from '../test/fakes/app-harness.ts';
import { generateCorpus, random } from './_memory-corpus.ts';
import { percentile } from './_memory-index.ts';

const QUERIES = Number(process.env['BENCH_QUERIES'] ?? 300);
// 200 days of 250 lines: 50 notes of 5 lines each (a heading line, then four facts or fillers).
const corpus = generateCorpus(7, 400, 200, 250);
const t = await createTestApp({ listen: true });
try {
  const dir = await t.services.workspace('main');
  await mkdir(join(dir, 'memory'), { recursive: true });
  for (const [path, lines] of corpus.files) await writeFile(join(dir, path), `${lines.join('\n')}\n`);
  const indexing = performance.now();
  await t.services.memory.sync('main');
  const indexMs = performance.now() - indexing;
  const next = random(11);
  const queries = Array.from(
    { length: QUERIES },
    () => corpus.questions[Math.floor(next() * corpus.questions.length)]?.text ?? 'tea',
  );
  const inProcess: number[] = [];
  // CPU time too: on a shared machine the wall time is mostly waiting for a core.
  const cpuStart = process.cpuUsage();
  for (const query of queries) {
    const start = performance.now();
    await t.services.memory.search('main', query, 10);
    inProcess.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuStart);
  const overHttp: number[] = [];
  for (const query of queries) {
    const start = performance.now();
    const response = await fetch(
      `${t.url}/api/v1/agents/main/memory/search?q=${encodeURIComponent(query)}&limit=10`,
    );
    await response.json();
    if (!response.ok) throw new Error(`search answered ${response.status}`);
    overHttp.push(performance.now() - start);
  }
  const round = (value: number) => Math.round(value * 100) / 100;
  console.log(
    JSON.stringify({
      bench: 'memory-search',
      files: corpus.files.size,
      notes: corpus.lines / 5,
      lines: corpus.lines,
      queries: QUERIES,
      indexSeconds: round(indexMs / 1000),
      inProcessMs: { p50: round(percentile(inProcess, 0.5)), p95: round(percentile(inProcess, 0.95)) },
      inProcessCpuMsPerQuery: round((cpu.user + cpu.system) / 1000 / QUERIES),
      httpMs: { p50: round(percentile(overHttp, 0.5)), p95: round(percentile(overHttp, 0.95)) },
    }),
  );
} finally {
  await t.close();
}
