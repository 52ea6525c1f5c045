// A full disk under the data root in single mode (issue 26): a real server on a small tmpfs (see
// test/fakes/small-disk.ts) that the test fills up. New writes (an agent, a workspace file, a chat
// turn stored in its session) are refused with 507 and one clear error, the server stays up, GET
// /ready says 503 while the disk is full and 200 again on its own once space is freed, and
// everything written before is intact: read back at once, and again after a restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DISK_FULL_MESSAGE } from '../../src/core/disk-space.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { smallDisk, type SmallDisk } from '../fakes/small-disk.ts';
import { call, site, until, type Proc, type Site } from './chaos-harness.ts';

const agent = (id: string) => ({ ruleChain: { id, name: `Agent ${id}` }, metadata: { nodes: [] } });
const chat = (proc: Proc, sessionId: string, content: string) =>
  call(proc, 'POST', '/api/v1/chat/completions', {
    model: 'main',
    sessionId,
    messages: [{ role: 'user', content }],
  });

/** The texts of a session's stored messages, oldest first. */
async function transcript(proc: Proc, sessionId: string): Promise<string[]> {
  const sessions = await call(proc, 'GET', '/api/v1/agents/main/sessions?size=100');
  assert.equal(sessions.status, 200, JSON.stringify(sessions.json));
  const found = (sessions.json['data'] as Array<{ key: string }>).find((session) =>
    session.key.endsWith(`:${sessionId}`),
  );
  if (!found) return [];
  const messages = await call(
    proc,
    'GET',
    `/api/v1/agents/main/sessions/${encodeURIComponent(found.key)}/messages?size=100`,
  );
  assert.equal(messages.status, 200, JSON.stringify(messages.json));
  return (messages.json['data'] as Array<{ content: unknown }>).map((message) => String(message.content));
}

describe('single mode: the data root disk full', () => {
  let model: FakeUpstream;
  let disk: SmallDisk;
  let place: Site | undefined;

  before(async () => {
    model = await startFakeUpstream({ reply: 'Noted.' });
    disk = await smallDisk(24 * 1024 * 1024);
  });
  after(async () => {
    await place?.close();
    await disk?.close();
    await model?.close();
  });

  it('refuses new writes with 507, reports not-ready, loses nothing, and recovers when space is back', async () => {
    place = await site(
      { server: { host: '127.0.0.1' }, models: model.modelsConfig() },
      { dataRoot: disk.path, command: (argv) => disk.command(argv) },
    );
    let server = await place.start('single');
    const ready = await call(server, 'GET', '/ready');
    assert.equal(ready.status, 200, `${disk.mechanism}: ${JSON.stringify(ready.json)}`);
    assert.deepEqual(ready.json['checks'], { database: 'ok', redis: 'not configured', disk: 'ok' });

    // Written before the disk fills up.
    assert.equal((await call(server, 'POST', '/api/v1/agents', agent('keeper'))).status, 201);
    const file = { path: 'notes/kept.md', content: 'kept before the disk filled up\n' };
    assert.equal((await call(server, 'POST', '/api/v1/agents/keeper/workspace/files', file)).status, 201);
    assert.equal((await chat(server, 'kept', 'first words')).status, 200);
    const before = await transcript(server, 'kept');
    assert.deepEqual(before, ['first words', 'Noted.']);

    const filled = await disk.fill();
    assert.ok(filled > 0, 'the filler took the free space');

    const notReady = await call(server, 'GET', '/ready');
    assert.equal(notReady.status, 503, JSON.stringify(notReady.json));
    assert.deepEqual(notReady.json['checks'], { database: 'ok', redis: 'not configured', disk: 'full' });

    const refusedAgent = await call(server, 'POST', '/api/v1/agents', agent('refused'));
    assert.deepEqual(refusedAgent, { status: 507, json: { error: DISK_FULL_MESSAGE } });
    const refusedFile = await call(server, 'PUT', '/api/v1/agents/keeper/workspace/file?path=notes/kept.md', {
      content: 'x'.repeat(256 * 1024),
    });
    assert.deepEqual(refusedFile, { status: 507, json: { error: DISK_FULL_MESSAGE } });
    const refusedTurn = await chat(server, 'kept', 'words that cannot be stored');
    assert.deepEqual(refusedTurn, { status: 507, json: { error: DISK_FULL_MESSAGE } });
    assert.equal(await (await fetch(`${server.url}/health`)).text(), 'OK');
    assert.ok(server.alive(), 'the server is still running');

    // Reads go on while the disk is full.
    assert.deepEqual(await transcript(server, 'kept'), before);

    await disk.free();
    const recovery = await until(
      async () => (await call(server, 'GET', '/ready')).status === 200,
      10_000,
      '/ready 200 once space is back',
    );
    assert.ok(recovery < 10_000);

    // Nothing written before is lost, nothing refused was half written, and writes work again.
    const check = async (proc: Proc): Promise<void> => {
      assert.equal((await call(proc, 'GET', '/api/v1/agents/keeper')).status, 200);
      assert.equal((await call(proc, 'GET', '/api/v1/agents/refused')).status, 404);
      const read = await call(proc, 'GET', '/api/v1/agents/keeper/workspace/file?path=notes/kept.md');
      assert.deepEqual(read, { status: 200, json: { content: file.content } });
    };
    await check(server);
    assert.deepEqual(await transcript(server, 'kept'), before);
    assert.equal((await call(server, 'POST', '/api/v1/agents', agent('after'))).status, 201);
    assert.equal((await chat(server, 'kept', 'second words')).status, 200);
    const afterwards = [...before, 'second words', 'Noted.'];
    assert.deepEqual(await transcript(server, 'kept'), afterwards);

    // And all of it is on disk: a restart reads the same.
    server.child.kill('SIGTERM');
    await server.exited;
    server = await place.start('single-again');
    await check(server);
    assert.equal((await call(server, 'GET', '/api/v1/agents/after')).status, 200);
    assert.deepEqual(await transcript(server, 'kept'), afterwards);
    assert.doesNotMatch(server.output(), /"level":50/);
  });
});
