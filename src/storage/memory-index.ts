// An agent's memory files (MEMORY.md and the notes in memory/) in the keyword index. The index
// follows the files however they change (the workspace API, the memory tools, an editor on disk):
// file-system watchers mark what changed and the next search re-reads it; without watchers, a
// search re-checks the folder when its last look is older than a second. With embeddings on
// (memory-vectors.ts), chunks are also embedded after each pass and vector hits fused in.
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { invalid, notFound } from '../core/errors.ts';
import { KeyedMutex } from '../core/keyed-mutex.ts';
import type { Db } from './database.ts';
import { chunkMarkdown, chunkSnippet, dayOf, isMemoryPath, noteDay } from './memory-chunks.ts';
import { admitted, byVector, entityTerms, fuse } from './search/fusion.ts';
import type { KeywordIndex, SearchDocument, SearchScope } from './search/keyword-index.ts';
import type { MemoryVectors, VectorHit } from './memory-vectors.ts';

export interface MemoryHit {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
}

export interface MemoryIndexOptions {
  /** Re-check the files when the last look is older than this without watchers (default 1000 ms). */
  pollMs?: number;
  /** Re-check them this often even with watchers, as a safety net (default 30 s). */
  watchedPollMs?: number;
  now?: () => number;
  /** The embeddings layer; without it (or with embeddings off) search is keyword-only. */
  vectors?: MemoryVectors;
}

interface AgentState {
  checkedAt: number;
  dirty: boolean;
  watchers: FSWatcher[];
}

const MAX_FILE_BYTES = 4 * 1024 * 1024;

export class MemoryIndex {
  private readonly agents = new Map<string, AgentState>();
  private readonly syncs = new KeyedMutex();
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly index: KeywordIndex,
    private readonly workspace: (agentId: string) => Promise<string>,
    private readonly options: MemoryIndexOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  async search(agentId: string, query: string, limit: number, threshold?: number): Promise<MemoryHit[]> {
    await this.sync(agentId);
    const scope: SearchScope = { corpus: 'memory', agentId };
    const options = { limit, ...(threshold === undefined ? {} : { threshold }) };
    const vectors = this.options.vectors;
    if (!vectors?.enabled() || limit <= 0)
      return (await this.index.search(scope, query, options)).map((hit) => toHit(hit, hit.score));
    // Both lists deeper than asked, so a chunk second in one and tenth in the other can rise.
    const depth = Math.max(limit * 2, 20);
    const [keyword, nearest] = await Promise.all([
      this.index.search(scope, query, { ...options, limit: depth }),
      vectors.nearest(agentId, query, depth),
    ]);
    if (!nearest || nearest.length === 0) return keyword.slice(0, limit).map((hit) => toHit(hit, hit.score));
    const found = new Set(keyword.map((hit) => hit.id));
    const alone = nearest.filter((hit) => !found.has(hit.id));
    const coverage = await this.index.coverage(
      scope,
      query,
      alone.map((hit) => hit.text),
    );
    const entities = entityTerms(query);
    const minSimilarity = vectors.current()?.minSimilarity ?? 0.5;
    const kept = new Set(
      alone
        .filter((hit, index) => admitted(hit, coverage[index] ?? 0, entities, minSimilarity))
        .map((hit) => hit.id),
    );
    const vectorList = byVector(nearest.filter((hit) => found.has(hit.id) || kept.has(hit.id)));
    return fuse<Fusable>([keyword, vectorList])
      .slice(0, limit)
      .map(({ item, score }) => toHit(item, score));
  }

  /** Resolves when the agent's embedding pass in progress (if any) has ended (tests, benchmarks). */
  async embedded(agentId: string): Promise<void> {
    await this.options.vectors?.settled(agentId);
  }

  /** Lines of a memory file (1-based, inclusive), for memory_get. */
  async read(agentId: string, path: string, from = 1, lines = 200): Promise<{ text: string; total: number }> {
    if (!isMemoryPath(path)) throw invalid('path must be MEMORY.md or memory/<name>.md');
    const dir = await this.workspace(agentId);
    let content: string;
    try {
      content = await readFile(join(dir, path), 'utf8');
    } catch {
      throw notFound(`memory file "${path}" not found`);
    }
    const all = content.split(/\r?\n/);
    return { text: all.slice(Math.max(0, from - 1), from - 1 + lines).join('\n'), total: all.length };
  }

  /**
   * Appends to today's note (memory/YYYY-MM-DD.md, UTC) or to MEMORY.md, atomically, and indexes it
   * at once. Returns the path written.
   */
  async append(agentId: string, target: 'today' | 'memory', text: string): Promise<string> {
    const body = text.trim();
    if (body === '') throw invalid('text must not be empty');
    const path = target === 'memory' ? 'MEMORY.md' : `memory/${dayOf(this.now())}.md`;
    const dir = await this.workspace(agentId);
    const file = join(dir, path);
    await this.syncs.run(`write:${file}`, async () => {
      const before = await readFile(file, 'utf8').catch(() => '');
      const separator = before === '' || before.endsWith('\n') ? '' : '\n';
      await writeFileAtomic(file, `${before}${separator}${body}\n`);
    });
    this.markDirty(agentId);
    return path;
  }

  /** The agent's memory files, for the web UI. */
  async files(agentId: string): Promise<Array<{ path: string; size: number; modifiedAt: number }>> {
    const found = await this.listFiles(await this.workspace(agentId));
    return [...found.entries()]
      .map(([path, info]) => ({ path, size: info.size, modifiedAt: info.mtimeMs }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Tells the index that a file of the agent changed (the workspace API calls it). */
  markDirty(agentId: string): void {
    const state = this.agents.get(agentId);
    if (state) state.dirty = true;
  }

  /** Drops an agent's index (a deleted agent). */
  async forget(agentId: string): Promise<void> {
    this.stopWatching(agentId);
    await this.index.remove('memory', agentId);
    await this.db.deleteFrom('memory_files').where('agent_id', '=', agentId).execute();
  }

  close(): void {
    for (const agentId of [...this.agents.keys()]) this.stopWatching(agentId);
  }

  /** Brings the agent's index up to date with its files when they may have changed. */
  async sync(agentId: string): Promise<void> {
    await this.syncs.run(agentId, async () => {
      const state = this.agents.get(agentId);
      const age = state ? this.now() - state.checkedAt : Infinity;
      const limit =
        state && state.watchers.length > 0
          ? (this.options.watchedPollMs ?? 30_000)
          : (this.options.pollMs ?? 1000);
      if (state && !state.dirty && age < limit) return;
      const dir = await this.workspace(agentId);
      const next = state ?? { checkedAt: 0, dirty: false, watchers: [] };
      next.dirty = false;
      next.checkedAt = this.now();
      if (!state) {
        this.agents.set(agentId, next);
        this.watch(agentId, dir, next);
      }
      if (await this.reindex(agentId, dir)) this.options.vectors?.markPending(agentId);
    });
    this.options.vectors?.schedule(agentId);
  }

  private watch(agentId: string, dir: string, state: AgentState): void {
    const mark = (): void => {
      state.dirty = true;
    };
    for (const folder of [dir, join(dir, 'memory')]) {
      try {
        const watcher = watch(folder, { persistent: false }, mark);
        watcher.on('error', () => {
          watcher.close();
          state.watchers = state.watchers.filter((entry) => entry !== watcher);
        });
        state.watchers.push(watcher);
      } catch {
        // No memory/ folder yet: the workspace watcher sees it appear, and polling covers the rest.
      }
    }
    // Without a watcher on memory/ (not there yet), the index polls until one exists.
    if (state.watchers.length < 2) {
      for (const watcher of state.watchers) watcher.close();
      state.watchers = [];
    }
  }

  private stopWatching(agentId: string): void {
    for (const watcher of this.agents.get(agentId)?.watchers ?? []) watcher.close();
    this.agents.delete(agentId);
  }

  private async listFiles(dir: string): Promise<Map<string, { size: number; mtimeMs: number }>> {
    const found = new Map<string, { size: number; mtimeMs: number }>();
    const add = async (path: string): Promise<void> => {
      const info = await stat(join(dir, path)).catch(() => undefined);
      if (info?.isFile()) found.set(path, { size: info.size, mtimeMs: Math.floor(info.mtimeMs) });
    };
    await add('MEMORY.md');
    const names = await readdir(join(dir, 'memory')).catch(() => [] as string[]);
    for (const name of names) if (isMemoryPath(`memory/${name}`)) await add(`memory/${name}`);
    return found;
  }

  /** Brings the index to the files; true when something changed. */
  private async reindex(agentId: string, dir: string): Promise<boolean> {
    const files = await this.listFiles(dir);
    const known = await this.db
      .selectFrom('memory_files')
      .selectAll()
      .where('agent_id', '=', agentId)
      .execute();
    const byPath = new Map(known.map((row) => [row.path, row]));
    const gone = known.filter((row) => !files.has(row.path)).map((row) => row.path);
    const changed = [...files].filter(([path, info]) => {
      const row = byPath.get(path);
      return !row || Number(row.mtime_ms) !== info.mtimeMs || Number(row.size) !== info.size;
    });
    if (gone.length > 0) {
      await this.db.transaction().execute(async (trx) => {
        await this.index.remove('memory', agentId, gone, trx);
        await trx
          .deleteFrom('memory_files')
          .where('agent_id', '=', agentId)
          .where('path', 'in', gone)
          .execute();
      });
    }
    for (const [path, info] of changed) await this.indexFile(agentId, dir, path, info);
    return gone.length > 0 || changed.length > 0;
  }

  private async indexFile(
    agentId: string,
    dir: string,
    path: string,
    info: { size: number; mtimeMs: number },
  ): Promise<void> {
    const content = info.size > MAX_FILE_BYTES ? '' : await readFile(join(dir, path), 'utf8').catch(() => '');
    const day = noteDay(path);
    const documents: SearchDocument[] = chunkMarkdown(content).map((chunk) => ({
      corpus: 'memory',
      agentId,
      source: path,
      startLine: chunk.startLine,
      endLine: chunk.endLine,
      // Later lines of a file are newer facts; a dated note is as old as its day.
      at: (day ?? info.mtimeMs) + chunk.startLine,
      text: chunk.text,
      hash: createHash('sha256').update(chunk.text).digest('hex'),
    }));
    // The file's row first: on PostgreSQL its upsert locks the row, so two instances indexing the
    // same file take turns instead of both inserting its chunks.
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('memory_files')
        .values({ agent_id: agentId, path, mtime_ms: info.mtimeMs, size: info.size })
        .onConflict((conflict) =>
          conflict.columns(['agent_id', 'path']).doUpdateSet({ mtime_ms: info.mtimeMs, size: info.size }),
        )
        .execute();
      await this.index.remove('memory', agentId, [path], trx);
      await this.index.insert(documents, trx);
    });
  }
}

type Fusable = Pick<VectorHit, 'id' | 'source' | 'startLine' | 'endLine' | 'at' | 'text'>;

function toHit(hit: Fusable, score: number): MemoryHit {
  return {
    path: hit.source,
    startLine: hit.startLine,
    endLine: hit.endLine,
    score,
    snippet: chunkSnippet(hit.text, hit.startLine, hit.endLine),
  };
}
