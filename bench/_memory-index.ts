// A memory index on a fresh libsql file over a temporary workspace, for the memory benchmarks.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openDatabase, type Db } from '../src/storage/database.ts';
import { MemoryIndex } from '../src/storage/memory-index.ts';
import { MemoryVectors } from '../src/storage/memory-vectors.ts';
import { embeddingModelSource } from '../src/model-providers/embedding-model.ts';
import { silentLogger } from '../src/core/logger.ts';
import { KeywordIndex } from '../src/storage/search/keyword-index.ts';

export interface BenchIndex {
  memory: MemoryIndex;
  db: Db;
  dir: string;
  close(): Promise<void>;
}

/**
 * `embeddings`: an OpenAI-compatible /embeddings base URL (the fake of test/fakes) to turn the
 * embeddings layer on; the index is then embedded before this returns.
 */
export async function memoryIndexOver(
  files: Map<string, string[]>,
  embeddings?: { baseUrl: string; model: string },
): Promise<BenchIndex> {
  const dir = await mkdtemp(join(tmpdir(), 'memory-bench-'));
  const workspace = join(dir, 'workspace');
  for (const [path, lines] of files) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), `${lines.join('\n')}\n`);
  }
  const db = await openDatabase(join(dir, 'bench.db'));
  const model = embeddingModelSource(
    () => ({
      providers: { bench: { base_url: embeddings?.baseUrl ?? 'http://127.0.0.1:9/v1' } },
      ...(embeddings
        ? {
            embeddings: {
              provider: 'bench',
              model: embeddings.model,
              batch_size: 256,
              timeout_ms: 60_000,
              query_timeout_ms: 10_000,
              min_similarity: 0.5,
            },
          }
        : {}),
    }),
    { logger: silentLogger },
  );
  const memory = new MemoryIndex(
    db,
    new KeywordIndex(db, 'sqlite'),
    () => Promise.resolve(workspace),
    embeddings ? { vectors: new MemoryVectors(db, model, { logger: silentLogger }) } : {},
  );
  await memory.sync('bench');
  await memory.embedded('bench');
  return {
    memory,
    db,
    dir: workspace,
    async close() {
      memory.close();
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
}
