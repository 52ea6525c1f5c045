// The optional embeddings layer of memory search, against a fake OpenAI-compatible /embeddings
// server: vectors stored and cached by content, a paraphrase keyword search misses found, the
// provider down (keyword results, no error, retried), no provider (unchanged), a never-mentioned
// person still finding nothing, and no key in any log line.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createLogger } from '../../src/http/logger.ts';
import type { Logger } from '../../src/core/logger.ts';
import { embeddingModelSource, type EmbeddingSettings } from '../../src/model-providers/embedding-model.ts';
import { openDatabase, type Db } from '../../src/storage/database.ts';
import { MemoryIndex } from '../../src/storage/memory-index.ts';
import { MemoryVectors } from '../../src/storage/memory-vectors.ts';
import { KeywordIndex } from '../../src/storage/search/keyword-index.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeEmbeddings, type FakeEmbeddings } from '../fakes/fake-embeddings.ts';
import { createTestDatabase } from '../fakes/test-database.ts';

const KEY = 'sk-embed-0123456789-secret';
const AGENT = 'keeper';
const NOTES = [
  '- Dana drives a red car.',
  '- Bob likes green tea.',
  '- The standup is at 09:30 in room 4.',
  '- Carol lives in Lisbon.',
].join('\n');

interface Rig {
  db: Db;
  memory: MemoryIndex;
  workspace: string;
  settings: EmbeddingSettings;
  lines: string[];
  close(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function embeddingsOf(
  fake: FakeEmbeddings,
  extra: Partial<NonNullable<EmbeddingSettings['embeddings']>> = {},
) {
  return {
    provider: 'embed',
    model: 'fake-embed-1',
    batch_size: 2,
    timeout_ms: 5000,
    query_timeout_ms: 5000,
    min_similarity: 0.5,
    ...extra,
  };
}

/** A memory index over a temp workspace with the notes, embeddings from `fake` unless `off`. */
async function rig(fake: FakeEmbeddings | undefined, options: { vectors?: boolean } = {}): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'memory-embeddings-'));
  const workspace = join(dir, 'workspace');
  await mkdir(join(workspace, 'memory'), { recursive: true });
  await writeFile(join(workspace, 'memory', '2026-11-20.md'), `${NOTES}\n`);
  const db = await openDatabase(join(dir, 'test.db'));
  const lines: string[] = [];
  const logger: Logger = {
    info: (details, message) => lines.push(JSON.stringify({ ...details, message })),
    warn: (details, message) => lines.push(JSON.stringify({ ...details, message })),
  };
  const settings: EmbeddingSettings = {
    providers: { embed: { base_url: fake?.baseUrl ?? 'http://127.0.0.1:9/v1', api_key: KEY } },
    ...(fake ? { embeddings: embeddingsOf(fake) } : {}),
  };
  const vectors = new MemoryVectors(
    db,
    embeddingModelSource(() => settings, { logger }),
    {
      logger,
      retryMs: 0,
    },
  );
  const memory = new MemoryIndex(db, new KeywordIndex(db, 'sqlite'), () => Promise.resolve(workspace), {
    ...(options.vectors === false ? {} : { vectors }),
  });
  const close = async () => {
    memory.close();
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  };
  cleanups.push(close);
  return { db, memory, workspace, settings, lines, close };
}

async function indexed(r: Rig): Promise<void> {
  await r.memory.sync(AGENT);
  await r.memory.embedded(AGENT);
}

async function vectorCount(db: Db): Promise<number> {
  const { rows } = await sql<{ count: number }>`select count(*) as count from memory_vectors`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

async function fake(): Promise<FakeEmbeddings> {
  const server = await startFakeEmbeddings({ apiKey: KEY });
  cleanups.push(() => server.close());
  return server;
}

describe('memory embeddings', () => {
  it('stores a vector per chunk and finds a paraphrase that keyword search misses', async () => {
    const server = await fake();
    const on = await rig(server);
    const off = await rig(undefined);
    await indexed(on);
    await indexed(off);
    assert.equal(await vectorCount(on.db), 4, 'one vector per chunk');
    assert.deepEqual(server.models, ['fake-embed-1', 'fake-embed-1'], 'batches of two');
    const query = 'What automobile does Dana own?';
    assert.deepEqual(await off.memory.search(AGENT, query, 5), [], 'keyword search misses it');
    const hits = await on.memory.search(AGENT, query, 5);
    assert.equal(hits[0]?.snippet, '- Dana drives a red car.');
    assert.equal(hits[0]?.startLine, 1);
    assert.ok((hits[0]?.score ?? 0) > 0);
    // What keyword search finds, it still finds first.
    const direct = await on.memory.search(AGENT, 'green tea', 5);
    assert.equal(direct[0]?.snippet, '- Bob likes green tea.');
  });

  it('a vector hit alone never answers for a person never mentioned', async () => {
    const on = await rig(await fake());
    await indexed(on);
    assert.deepEqual(await on.memory.search(AGENT, 'What automobile does Zoltan own?', 5), []);
    assert.deepEqual(await on.memory.search(AGENT, 'Which city is Zoltan based in?', 5), []);
    const found = await on.memory.search(AGENT, 'Which city is Carol based in?', 5);
    assert.equal(found[0]?.snippet, '- Carol lives in Lisbon.');
  });

  it('without an embedding provider, search is exactly the keyword search', async () => {
    const plain = await rig(undefined, { vectors: false });
    const unset = await rig(undefined);
    await indexed(plain);
    await indexed(unset);
    for (const query of [
      'Where does Carol live?',
      'green tea',
      'standup 09:30',
      'What automobile does Dana own?',
    ])
      assert.deepEqual(
        await unset.memory.search(AGENT, query, 5),
        await plain.memory.search(AGENT, query, 5),
      );
    assert.equal(await vectorCount(unset.db), 0);
  });

  it('embeds unchanged chunks once; a changed chunk and a model change are embedded again', async () => {
    const server = await fake();
    const r = await rig(server);
    await indexed(r);
    assert.equal(server.inputs.length, 4);
    const note = join(r.workspace, 'memory', '2026-11-20.md');
    // The same content rewritten (a new mtime): nothing new to embed.
    await writeFile(note, `${NOTES}\n`);
    r.memory.markDirty(AGENT);
    await indexed(r);
    assert.equal(server.inputs.length, 4);
    // One chunk changed, one added: those two only.
    await writeFile(note, `${NOTES.replace('green tea', 'black coffee')}\n- Erin keeps a parrot.\n`);
    r.memory.markDirty(AGENT);
    await indexed(r);
    assert.deepEqual(server.inputs.slice(4).sort(), ['- Bob likes black coffee.', '- Erin keeps a parrot.']);
    assert.equal(await vectorCount(r.db), 5, 'the vector of the replaced chunk is dropped');
    // Another dimension is another vector space: everything is embedded again.
    r.settings.embeddings = { ...embeddingsOf(server), dimensions: 64 };
    r.memory.markDirty(AGENT);
    await indexed(r);
    assert.equal(server.inputs.length, 6 + 5);
    assert.equal(await vectorCount(r.db), 5);
    assert.equal((await r.memory.search(AGENT, 'What automobile does Dana own?', 5))[0]?.startLine, 1);
  });

  it('with the provider down, search answers by keyword without error and embeds once it is back', async () => {
    const server = await fake();
    server.mode = 'down';
    const r = await rig(server);
    await indexed(r);
    assert.equal(await vectorCount(r.db), 0);
    const hits = await r.memory.search(AGENT, 'Where does Carol live?', 5);
    assert.equal(hits[0]?.snippet, '- Carol lives in Lisbon.');
    assert.deepEqual(await r.memory.search(AGENT, 'What automobile does Dana own?', 5), []);
    const logged = r.lines.join('\n');
    assert.match(logged, /memory embeddings failed/);
    assert.match(logged, /memory query embedding failed/);
    assert.match(logged, /503/);
    assert.ok(!logged.includes(KEY), 'the key the provider echoed is not logged');
    server.mode = 'ok';
    await indexed(r);
    assert.equal(await vectorCount(r.db), 4, 'retried on the next index pass');
    assert.equal((await r.memory.search(AGENT, 'What automobile does Dana own?', 5))[0]?.startLine, 1);
  });

  it('a query the provider does not answer in time falls back to keyword results', async () => {
    const server = await fake();
    const r = await rig(server);
    await indexed(r);
    server.mode = 'hang';
    r.settings.embeddings = { ...embeddingsOf(server), query_timeout_ms: 200 };
    const hits = await r.memory.search(AGENT, 'Where does Carol live?', 5);
    assert.equal(hits[0]?.snippet, '- Carol lives in Lisbon.');
    assert.match(r.lines.join('\n'), /timed out after 200 ms/);
  });
});

describe('memory embeddings in the server', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('GET memory/search keeps its shape, finds the paraphrase, and logs no key when the provider fails', async () => {
    const server = await fake();
    const sink: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        sink.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await createTestApp({
      logger: createLogger('info', stream),
      config: {
        models: { providers: { embed: { base_url: server.baseUrl, api_key: KEY, model: 'unused' } } },
        memory: { embeddings: { provider: 'embed', model: 'fake-embed-1' } },
      },
    });
    const written = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents/main/workspace/files',
      payload: { path: 'memory/2026-11-20.md', content: `${NOTES}\n` },
    });
    assert.equal(written.statusCode, 201, written.body);
    await t.services.memory.sync('main');
    await t.services.memory.embedded('main');
    const response = await t.app.inject({
      url: `/api/v1/agents/main/memory/search?q=${encodeURIComponent('What automobile does Dana own?')}&limit=3`,
    });
    assert.equal(response.statusCode, 200, response.body);
    const { results } = response.json<{ results: Array<Record<string, unknown>> }>();
    assert.deepEqual(Object.keys(results[0] ?? {}).sort(), [
      'endLine',
      'path',
      'score',
      'snippet',
      'startLine',
    ]);
    assert.equal(results[0]?.['snippet'], '- Dana drives a red car.');
    server.mode = 'down';
    const down = await t.app.inject({
      url: `/api/v1/agents/main/memory/search?q=${encodeURIComponent('Where does Carol live in Lisbon?')}`,
    });
    assert.equal(down.statusCode, 200, down.body);
    assert.equal(
      down.json<{ results: Array<{ snippet: string }> }>().results[0]?.snippet,
      '- Carol lives in Lisbon.',
    );
    const logged = sink.join('');
    assert.match(logged, /memory query embedding failed/);
    assert.ok(!logged.includes(KEY));
  });

  it('on PostgreSQL (clustered mode) configured embeddings are unused: keyword search answers, said once', async () => {
    const server = await fake();
    const database = await createTestDatabase('postgres', process.env);
    cleanups.push(() => database.drop());
    const sink: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        sink.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await createTestApp({
      logger: createLogger('info', stream),
      config: {
        data: { database_url: database.databaseUrl },
        models: { providers: { embed: { base_url: server.baseUrl, api_key: KEY, model: 'unused' } } },
        memory: { embeddings: { provider: 'embed', model: 'fake-embed-1' } },
      },
    });
    const written = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents/main/workspace/files',
      payload: { path: 'memory/2026-11-20.md', content: `${NOTES}\n` },
    });
    assert.equal(written.statusCode, 201, written.body);
    const app = t.app;
    for (const q of ['Where does Carol live?', 'Carol Lisbon']) {
      const response = await app.inject({
        url: `/api/v1/agents/main/memory/search?q=${encodeURIComponent(q)}`,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(
        response.json<{ results: Array<{ snippet: string }> }>().results[0]?.snippet,
        '- Carol lives in Lisbon.',
      );
    }
    assert.equal(server.calls, 0, 'the provider is never called');
    assert.equal(sink.join('').match(/memory\.embeddings is set but unused/g)?.length, 1);
  });
});
