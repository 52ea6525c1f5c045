// Memory and session search through the REST API: Chinese found by Chinese, files written by hand
// found within 2 seconds, newer facts first, nothing for what was never said, the memory tools in a
// turn, and transcript search scoped as the session list.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { AGENT, startMemoryApp, type MemoryApp } from './memory-harness.ts';

let m: MemoryApp | undefined;
let t: TestApp | undefined;
afterEach(async () => {
  await m?.close();
  await t?.close();
  m = undefined;
  t = undefined;
});

interface Hit {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
}

async function search(app: TestApp, q: string, limit = 5): Promise<Hit[]> {
  const response = await app.app.inject({
    url: `/api/v1/agents/${AGENT}/memory/search?q=${encodeURIComponent(q)}&limit=${limit}`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ results: Hit[] }>().results;
}

async function eventually<T>(
  probe: () => Promise<T | undefined>,
  ms: number,
): Promise<{ value: T; after: number }> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return { value, after: Date.now() - start };
    if (Date.now() - start > ms) assert.fail(`not within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('memory search', () => {
  it('finds a Chinese note by a Chinese query, with 1-based inclusive lines, best first', async () => {
    m = await startMemoryApp();
    const created = await m.t.app.inject({
      method: 'POST',
      url: `/api/v1/agents/${AGENT}/workspace/files`,
      payload: {
        path: 'memory/2026-11-20.md',
        content: '# 客户\n\n- 客户的订单号是 A-7731\n- 客户住在上海\n',
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const hits = await search(m.t, '订单号');
    assert.deepEqual(hits[0] && { ...hits[0], score: undefined }, {
      path: 'memory/2026-11-20.md',
      startLine: 3,
      endLine: 3,
      score: undefined,
      snippet: '- 客户的订单号是 A-7731',
    });
    assert.equal(hits.length, 1);
    assert.equal((await search(m.t, 'A-7731'))[0]?.startLine, 3);
  });

  it('a file written by hand on disk is searchable within 2 seconds; an unknown entity finds nothing', async () => {
    m = await startMemoryApp();
    const dir = await m.t.services.workspace(AGENT);
    await mkdir(join(dir, 'memory'), { recursive: true });
    await writeFile(join(dir, 'memory', '2026-11-01.md'), '- Alice lives in Paris\n');
    assert.equal((await search(m.t, 'Where does Alice live?'))[0]?.snippet, '- Alice lives in Paris');
    await writeFile(
      join(dir, 'memory', '2026-11-21.md'),
      '- Alice lives in Berlin now\n- Bob likes green tea\n',
    );
    const { after } = await eventually(async () => {
      const hits = await search(m?.t ?? assert.fail(), 'Where does Alice live?');
      return hits[0]?.snippet.includes('Berlin') ? hits : undefined;
    }, 2000);
    assert.ok(after < 2000);
    const hits = await search(m.t, 'Where does Alice live?');
    assert.deepEqual(
      hits.map((hit) => hit.snippet),
      ['- Alice lives in Berlin now', '- Alice lives in Paris'],
      'the newer fact first',
    );
    assert.deepEqual(await search(m.t, 'Where does Zoltan live?'), [], 'never mentioned: no result');
    await writeFile(join(dir, 'MEMORY.md'), '# Curated\n\nThe team standup is at 09:30.\n');
    await eventually(
      async () => ((await search(m?.t ?? assert.fail(), 'standup')).length > 0 ? true : undefined),
      2000,
    );
  });

  it('validates its query and knows its agents', async () => {
    m = await startMemoryApp();
    const bad = await m.t.app.inject({ url: `/api/v1/agents/${AGENT}/memory/search?q=&limit=5` });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json<{ error: string }>().error, /q/);
    const limit = await m.t.app.inject({ url: `/api/v1/agents/${AGENT}/memory/search?q=x&limit=500` });
    assert.equal(limit.statusCode, 400);
    const ghost = await m.t.app.inject({ url: '/api/v1/agents/ghost/memory/search?q=x' });
    assert.equal(ghost.statusCode, 404);
    assert.match(ghost.json<{ error: string }>().error, /ghost/);
    const files = await m.t.app.inject({ url: `/api/v1/agents/${AGENT}/memory/files` });
    assert.deepEqual(files.json(), { files: [] });
  });

  it("the memory tools write today's note and find it again in a later turn", async () => {
    m = await startMemoryApp();
    const access = (await import('../../src/turns/memory-access.ts')).memoryAccess(
      m.t.services.memory,
      m.t.services.sessionSearch,
      AGENT,
      m.key('tools'),
    );
    const path = await access.write('today', '- the VPN password hint is "blue door" (ticket TKT-4411)');
    assert.match(path, /^memory\/\d{4}-\d{2}-\d{2}\.md$/);
    const hits = await access.search('VPN ticket', 5);
    assert.equal(hits[0]?.path, path);
    assert.equal(
      (await access.get(path, 1, 10)).text.trim(),
      '- the VPN password hint is "blue door" (ticket TKT-4411)',
    );
    await assert.rejects(access.get('../secret.md', 1, 10), /MEMORY\.md or memory/);
  });
});

describe('session search', () => {
  const ADMIN_KEY = 'sk-admin-0123456789abcdef';
  const CRM_KEY = 'sk-crm-0123456789abcdef';
  const OTHER_KEY = 'sk-other-0123456789abcdef';

  it("is scoped as the session list: an api account never sees another account's conversation", async () => {
    t = await createTestApp({
      config: {
        security: { requireAuth: true, users: { admin: `a-long-password:${ADMIN_KEY}` } },
        channels: {
          api: {
            enabled: true,
            accounts: {
              crm: { name: 'CRM', api_key: CRM_KEY },
              other: { name: 'Other', api_key: OTHER_KEY },
            },
          },
        },
      },
    });
    const app = t.app;
    const chat = (sessionId: string, content: string, key: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        payload: { model: 'main', sessionId, messages: [{ role: 'user', content }] },
      });
    assert.equal((await chat('s1', 'my invoice INV-2024-0042 is wrong', CRM_KEY)).statusCode, 200);
    assert.equal((await chat('s2', 'my invoice INV-2024-0099 is late', OTHER_KEY)).statusCode, 200);
    const find = async (q: string, key: string) => {
      const response = await app.inject({
        url: `/api/v1/agents/main/sessions/search?q=${encodeURIComponent(q)}`,
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{
        results: Array<{ sessionKey: string; sessionId: string; role: string; snippet: string }>;
      }>().results;
    };
    const crm = await find('invoice', CRM_KEY);
    assert.ok(crm.length > 0);
    assert.ok(crm.every((hit) => hit.sessionKey.includes(':per_account_channel_peer:crm:')));
    assert.deepEqual(await find('INV-2024-0099', CRM_KEY), []);
    const admin = await find('invoice wrong', ADMIN_KEY);
    assert.equal(admin[0]?.sessionId, 'crm:s1');
    assert.equal(admin[0]?.role, 'user');
    assert.equal((await find('INV-2024-0099', ADMIN_KEY))[0]?.snippet, 'my invoice INV-2024-0099 is late');
    const anonymous = await app.inject({ url: '/api/v1/agents/main/sessions/search?q=invoice' });
    assert.equal(anonymous.statusCode, 401);
  });

  it('a conversation of another channel searches only itself', async () => {
    const { sessionScopeOf } = await import('../../src/turns/memory-access.ts');
    assert.deepEqual(sessionScopeOf('agent:main:channel:telegram:scope:per_peer:42'), {
      sources: ['agent:main:channel:telegram:scope:per_peer:42'],
    });
    assert.deepEqual(sessionScopeOf('agent:main:channel:api:scope:per_account_channel_peer:crm:s1'), {
      prefixes: ['agent:main:channel:api:scope:per_account_channel_peer:crm:'],
    });
    m = await startMemoryApp();
    const info = (channel: string) => ({ agentId: AGENT, channel, scope: 'per_peer' });
    await m.t.services.sessions.append(`agent:${AGENT}:channel:telegram:scope:per_peer:1`, info('telegram'), [
      { role: 'user', content: 'my parcel PCL-5531 is missing' },
    ]);
    await m.t.services.sessions.append(`agent:${AGENT}:channel:telegram:scope:per_peer:2`, info('telegram'), [
      { role: 'user', content: 'my parcel PCL-7788 is missing' },
    ]);
    const { memoryAccess } = await import('../../src/turns/memory-access.ts');
    const first = memoryAccess(
      m.t.services.memory,
      m.t.services.sessionSearch,
      AGENT,
      `agent:${AGENT}:channel:telegram:scope:per_peer:1`,
    );
    const hits = await first.searchSessions('parcel missing', 10);
    assert.deepEqual(
      hits.map((hit) => hit.snippet),
      ['my parcel PCL-5531 is missing'],
    );
  });
});
